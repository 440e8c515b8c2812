"""ctypes bindings of libMixedPrecCAPI.so (include/mp-c/, docs/CAPI.md).

Only what the package uses: the session API of mp-c/Compiler.h and, to read a
train step's signature, a few functions of MLIR's C API that the library
exports as well.
"""

import ctypes
import os

from . import _config


class MlirStringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    @classmethod
    def of(cls, text):
        data = text.encode("utf-8")
        buffer = ctypes.create_string_buffer(data, len(data) + 1)
        ref = cls(ctypes.cast(buffer, ctypes.c_void_p), len(data))
        ref._buffer = buffer  # alive as long as the reference
        return ref

    def text(self):
        if not self.length:
            return ""
        return ctypes.string_at(self.data, self.length).decode("utf-8", "replace")


def _handle(name):
    return type(name, (ctypes.Structure,), {"_fields_": [("ptr", ctypes.c_void_p)]})


MpSession = _handle("MpSession")
MpEngine = _handle("MpEngine")
MpEngineEvent = _handle("MpEngineEvent")
MpEngineStaging = _handle("MpEngineStaging")
MlirContext = _handle("MlirContext")
MlirModule = _handle("MlirModule")
MlirOperation = _handle("MlirOperation")
MlirBlock = _handle("MlirBlock")
MlirAttribute = _handle("MlirAttribute")
MlirType = _handle("MlirType")
MlirIdentifier = _handle("MlirIdentifier")
MlirValue = _handle("MlirValue")

STATUS_NAMES = {
    0: "success", 1: "parse error", 2: "verify error", 3: "invalid pipeline",
    4: "pass failure", 5: "I/O error", 6: "invalid argument", 7: "pass crash",
    8: "device error",
}

#: MP_STATUS_DEVICE_ERROR: no CUDA driver, or a driver call failed.
DEVICE_ERROR = 8

_STRING_CALLBACK = ctypes.CFUNCTYPE(None, MlirStringRef, ctypes.c_void_p)
#: mlirOperationWalk's callback: returns an MlirWalkResult (0: advance).
WALK_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, MlirOperation, ctypes.c_void_p)


def library_path():
    """The library loaded: $MIXEDPREC_CAPI_LIBRARY, else the one next to the
    package (build tree or install prefix)."""
    return os.environ.get("MIXEDPREC_CAPI_LIBRARY") or _config.capi_library()


_lib = None


def lib():
    """The loaded library (loaded at first use)."""
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            "mixedprec: the C API library %r does not exist (build MixedPrec, "
            "or set MIXEDPREC_CAPI_LIBRARY)" % path)
    library = ctypes.CDLL(path)
    signatures = {
        "mpSessionCreate": (MpSession, []),
        "mpSessionDestroy": (None, [MpSession]),
        "mpSessionGetContext": (MlirContext, [MpSession]),
        "mpSessionParseModule": (ctypes.c_int, [MpSession, MlirStringRef, MlirStringRef,
                                                ctypes.POINTER(MlirModule)]),
        "mpSessionRunPipeline": (ctypes.c_int, [MpSession, MlirModule, MlirStringRef]),
        "mpSessionPrintModule": (ctypes.c_int, [MpSession, MlirModule]),
        "mpSessionPrecisionReport": (ctypes.c_int, [MpSession, MlirModule, MlirStringRef]),
        "mpSessionCompile": (ctypes.c_int, [MpSession, MlirStringRef, MlirStringRef,
                                            MlirStringRef]),
        "mpSessionGetOutput": (MlirStringRef, [MpSession]),
        "mpSessionGetMessage": (MlirStringRef, [MpSession]),
        "mpSessionGetDiagnostics": (MlirStringRef, [MpSession]),
        "mpSessionCreateEngine": (ctypes.c_int, [MpSession, MlirModule, MlirStringRef,
                                                 ctypes.c_uint, ctypes.POINTER(MpEngine)]),
        "mpEngineInvoke": (ctypes.c_int, [MpSession, MpEngine, MlirStringRef,
                                          ctypes.POINTER(ctypes.c_void_p)]),
        "mpEngineDestroy": (None, [MpEngine]),
        "mpSessionCreateEngineOnDevice": (ctypes.c_int, [MpSession, MlirModule, MlirStringRef,
                                                         MlirStringRef, ctypes.c_uint,
                                                         ctypes.POINTER(MpEngine)]),
        "mpEngineGetDevice": (MlirStringRef, [MpEngine]),
        "mpEngineIsDeviceResident": (ctypes.c_bool, [MpEngine]),
        "mpEngineDeviceAlloc": (ctypes.c_int, [MpSession, MpEngine, ctypes.c_uint64,
                                               ctypes.POINTER(ctypes.c_void_p)]),
        "mpEngineDeviceFree": (ctypes.c_int, [MpSession, MpEngine, ctypes.c_void_p]),
        "mpEngineHostAlloc": (ctypes.c_int, [MpSession, MpEngine, ctypes.c_uint64,
                                             ctypes.POINTER(ctypes.c_void_p)]),
        "mpEngineHostFree": (ctypes.c_int, [MpSession, MpEngine, ctypes.c_void_p]),
        "mpEngineCopy": (ctypes.c_int, [MpSession, MpEngine, ctypes.c_void_p, ctypes.c_void_p,
                                        ctypes.c_uint64]),
        "mpEngineEventCreate": (ctypes.c_int, [MpSession, MpEngine,
                                               ctypes.POINTER(MpEngineEvent)]),
        "mpEngineEventRecord": (ctypes.c_int, [MpSession, MpEngine, MpEngineEvent]),
        "mpEngineEventSynchronize": (ctypes.c_int, [MpSession, MpEngine, MpEngineEvent]),
        "mpEngineEventDestroy": (None, [MpEngineEvent]),
        "mpEngineStagingCreate": (ctypes.c_int, [MpSession, MpEngine, ctypes.c_uint64,
                                                 ctypes.POINTER(MpEngineStaging)]),
        "mpEngineStagingAcquire": (ctypes.c_int, [MpSession, MpEngine, MpEngineStaging,
                                                  ctypes.POINTER(ctypes.c_void_p)]),
        "mpEngineStagingCopy": (ctypes.c_int, [MpSession, MpEngine, MpEngineStaging,
                                               ctypes.c_void_p, ctypes.c_uint64,
                                               ctypes.c_uint64]),
        "mpEngineStagingRelease": (ctypes.c_int, [MpSession, MpEngine, MpEngineStaging]),
        "mpEngineStagingDestroy": (None, [MpEngineStaging]),
        "mpEngineSynchronize": (ctypes.c_int, [MpSession, MpEngine]),
        "mlirModuleDestroy": (None, [MlirModule]),
        "mlirModuleGetBody": (MlirBlock, [MlirModule]),
        "mlirBlockGetFirstOperation": (MlirOperation, [MlirBlock]),
        "mlirOperationGetNextInBlock": (MlirOperation, [MlirOperation]),
        "mlirOperationGetName": (MlirIdentifier, [MlirOperation]),
        "mlirIdentifierStr": (MlirStringRef, [MlirIdentifier]),
        "mlirOperationWalk": (None, [MlirOperation, WALK_CALLBACK, ctypes.c_void_p,
                                     ctypes.c_int]),
        "mlirModuleGetOperation": (MlirOperation, [MlirModule]),
        "mlirOperationGetNumOperands": (ctypes.c_ssize_t, [MlirOperation]),
        "mlirOperationGetOperand": (MlirValue, [MlirOperation, ctypes.c_ssize_t]),
        "mlirValueGetType": (MlirType, [MlirValue]),
        "mlirValueIsABlockArgument": (ctypes.c_bool, [MlirValue]),
        "mlirBlockArgumentGetOwner": (MlirBlock, [MlirValue]),
        "mlirBlockArgumentGetArgNumber": (ctypes.c_ssize_t, [MlirValue]),
        "mlirBlockGetParentOperation": (MlirOperation, [MlirBlock]),
        "mlirOperationGetAttributeByName": (MlirAttribute, [MlirOperation, MlirStringRef]),
        "mlirStringAttrGetValue": (MlirStringRef, [MlirAttribute]),
        "mlirTypeAttrGetValue": (MlirType, [MlirAttribute]),
        "mlirArrayAttrGetNumElements": (ctypes.c_ssize_t, [MlirAttribute]),
        "mlirArrayAttrGetElement": (MlirAttribute, [MlirAttribute, ctypes.c_ssize_t]),
        "mlirDictionaryAttrGetElementByName": (MlirAttribute, [MlirAttribute, MlirStringRef]),
        "mlirAttributeIsAString": (ctypes.c_bool, [MlirAttribute]),
        "mlirAttributeIsAInteger": (ctypes.c_bool, [MlirAttribute]),
        "mlirIntegerAttrGetValueInt": (ctypes.c_int64, [MlirAttribute]),
        "mlirAttributeIsAFloat": (ctypes.c_bool, [MlirAttribute]),
        "mlirFloatAttrGetValueDouble": (ctypes.c_double, [MlirAttribute]),
        "mlirAttributeIsADenseElements": (ctypes.c_bool, [MlirAttribute]),
        "mlirDenseElementsAttrIsSplat": (ctypes.c_bool, [MlirAttribute]),
        "mlirDenseElementsAttrGetSplatValue": (MlirAttribute, [MlirAttribute]),
        "mlirElementsAttrGetNumElements": (ctypes.c_int64, [MlirAttribute]),
        "mlirDenseElementsAttrGetInt64Value": (ctypes.c_int64, [MlirAttribute, ctypes.c_ssize_t]),
        "mlirDenseElementsAttrGetFloatValue": (ctypes.c_float, [MlirAttribute, ctypes.c_ssize_t]),
        "mlirDenseElementsAttrGetDoubleValue": (ctypes.c_double,
                                                [MlirAttribute, ctypes.c_ssize_t]),
        "mlirAttributeGetType": (MlirType, [MlirAttribute]),
        "mlirFunctionTypeGetNumInputs": (ctypes.c_ssize_t, [MlirType]),
        "mlirFunctionTypeGetNumResults": (ctypes.c_ssize_t, [MlirType]),
        "mlirFunctionTypeGetInput": (MlirType, [MlirType, ctypes.c_ssize_t]),
        "mlirFunctionTypeGetResult": (MlirType, [MlirType, ctypes.c_ssize_t]),
        "mlirShapedTypeGetRank": (ctypes.c_int64, [MlirType]),
        "mlirShapedTypeGetDimSize": (ctypes.c_int64, [MlirType, ctypes.c_ssize_t]),
        "mlirShapedTypeGetElementType": (MlirType, [MlirType]),
        "mlirTypePrint": (None, [MlirType, _STRING_CALLBACK, ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    _lib = library
    return library


def type_to_string(mlir_type):
    """MLIR's text of a type (`f32`, `tensor<4xf32>`)."""
    pieces = []
    callback = _STRING_CALLBACK(lambda text, _: pieces.append(text.text()))
    lib().mlirTypePrint(mlir_type, callback, None)
    return "".join(pieces)
