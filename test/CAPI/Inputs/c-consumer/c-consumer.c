/* Compiles a train step with the mixed-precision pipeline through the C API
 * and prints the result, or the failure. */
#include "mp-c/Compiler.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s file.mlir pipeline\n", argv[0]);
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return 2;
  static char text[1 << 20];
  size_t size = fread(text, 1, sizeof(text) - 1, file);
  text[size] = 0;
  fclose(file);

  MpSession session = mpSessionCreate();
  MpStatus status = mpSessionCompile(session, mlirStringRefCreate(text, size),
                                     mlirStringRefCreateFromCString(argv[1]),
                                     mlirStringRefCreateFromCString(argv[2]));
  if (status == MP_STATUS_SUCCESS)
    fputs(mpSessionGetOutput(session).data, stdout);
  else
    printf("%s: %s\n%s", mpStatusGetName(status),
           mpSessionGetMessage(session).data,
           mpSessionGetDiagnostics(session).data);
  mpSessionDestroy(session);
  return status == MP_STATUS_SUCCESS ? 0 : 1;
}
