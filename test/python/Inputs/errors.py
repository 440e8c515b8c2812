"""A helper of the tests of test/python: prints the error a call raises."""


def fails(what, call):
    """Calls `call()` and prints `what: ErrorType first line of the
    message`, or `what: no error`."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type is printed
        print(what + ":", type(error).__name__, str(error).splitlines()[0])
    else:
        print(what + ": no error")
