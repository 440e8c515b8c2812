/*===- TestPasses.h - Passes that exist only for tests ------------*- C -*-===*\
|*                                                                            *|
|* Registers the test-only passes of libMixedPrecTestPasses with MLIR's pass  *|
|* registry, so that C programs can name them in a textual pipeline.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MP_TEST_LIB_TESTPASSES_H
#define MP_TEST_LIB_TESTPASSES_H

#ifdef __cplusplus
extern "C" {
#endif

/// Registers `mp-test-crash`.
void mpTestRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif // MP_TEST_LIB_TESTPASSES_H
