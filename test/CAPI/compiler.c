/*===- compiler.c - The C API of MixedPrec, as a C program uses it --------===*/
/*
 * Built by CMake as `mp-capi-test` (C, linking only libMixedPrecCAPI.so and
 * the test-only passes of test/lib) and run here: dialect registration and
 * the generated per-pass entry points through MLIR's C API, then the session
 * API (parse, run a pipeline, print, precision report, diagnostics),
 * including every failure status; `--crash` runs crashing passes
 * (crash-containment.test); `--engine` JIT-compiles a module in process and
 * calls it on buffers of this program (mp-c/Engine.h, engine.test).
 */
// RUN: mp-capi-test %mp_src_root/docs/examples/mlp_train_step.mlir %t.json 2>&1 | FileCheck %s
// The precision report (with deny=mp.linear) is the pass's JSON report.
// RUN: %python -c "import json, sys; f = json.load(open(sys.argv[1]))['functions'][0]; print(f['name'], sorted({o['category'] for o in f['ops'] if o['name'] == 'mp.linear'}), f['bytes']['totals']['parameters'])" %t.json | FileCheck %s --check-prefix=JSON
// JSON: train_step ['deny'] 814120

#include "mp-c/Compiler.h"
#include "mp-c/Engine.h"
#include "TestPasses.h"
#include "mp-c/Dialects.h"
#include "mp-c/Passes.h"

#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirStringRef ref(const char *text) {
  return mlirStringRefCreateFromCString(text);
}

/* Prints a call's status, message and diagnostics. */
static void printFailure(MpSession session, const char *what, MpStatus status) {
  printf("%s: %s\n", what, mpStatusGetName(status));
  printf("  message: %s\n", mpSessionGetMessage(session).data);
  printf("  diagnostics: %s", mpSessionGetDiagnostics(session).data);
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc(size + 1);
  size_t read = fread(text, 1, size, file);
  text[read] = 0;
  fclose(file);
  return text;
}

static const char *kMatmul =
    "func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> "
    "{\n"
    "  %c = mp.matmul %a, %b acc(f32) : tensor<4x8xf32>, tensor<8x2xf32> -> "
    "tensor<4x2xf32>\n"
    "  return %c : tensor<4x2xf32>\n"
    "}\n";

/* The dialect handle and a generated pass constructor, with MLIR's C API. */
static void testDialectAndGeneratedPasses(void) {
  MlirContext context = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), context);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__mp__(), context);
  MlirStringRef ns =
      mlirDialectHandleGetNamespace(mlirGetDialectHandle__mp__());
  printf("dialect namespace: %.*s\n", (int)ns.length, ns.data);
  // CHECK-LABEL: dialect namespace: mp

  MlirModule module = mlirModuleCreateParse(context, ref(kMatmul));
  if (mlirModuleIsNull(module)) {
    printf("FAILED to parse with the registered mp dialect\n");
    exit(1);
  }
  MlirPassManager pm = mlirPassManagerCreate(context);
  /* mp-autocast (a module pass) from its generated constructor. */
  mlirPassManagerAddOwnedPass(pm, mlirCreateMPMPAutocast());
  MlirLogicalResult result =
      mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  printf("mlirCreateMPMPAutocast: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  // CHECK: mlirCreateMPMPAutocast: success
  // CHECK: mp.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
  // CHECK: mp.matmul {{.*}} acc(f32) : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf32>
  mlirPassManagerDestroy(pm);

  /* Registered pipelines parse from text after mpRegisterAllPasses. */
  mpRegisterAllPasses();
  mpRegisterAllPasses(); /* a second call does nothing */
  pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  result = mlirParsePassPipeline(
      opm, ref("builtin.module(mp-autocast{compute-type=bf16})"), printToStdout,
      NULL);
  printf("\nparsed pipeline: %s\n",
         mlirLogicalResultIsSuccess(result) ? "success" : "failure");
  // CHECK: parsed pipeline: success
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

static void testSession(const char *examplePath, const char *reportPath) {
  MpSession session = mpSessionCreate();
  char *example = readFile(examplePath);
  if (!example) {
    printf("FAILED to read %s\n", examplePath);
    exit(1);
  }

  /* Parse, run the mixed-precision pipeline, print. */
  MlirModule module;
  MpStatus status =
      mpSessionParseModule(session, ref(example), ref("mlp.mlir"), &module);
  printf("parse: %s\n", mpStatusGetName(status));
  // CHECK-LABEL: parse: success
  status = mpSessionRunPipeline(
      session, module, ref("mp-mixed-precision-pipeline{compute-type=bf16}"));
  printf("pipeline: %s\n", mpStatusGetName(status));
  // CHECK: pipeline: success
  status = mpSessionPrintModule(session, module);
  printf("print: %s\n%s", mpStatusGetName(status),
         mpSessionGetOutput(session).data);
  // CHECK: print: success
  // CHECK: func.func @train_step
  // CHECK-NOT: mp.grad
  // CHECK: mp.linear {{.*}} acc(f32) : (tensor<64x784xbf16>, tensor<256x784xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
  // CHECK: mp.adam
  mlirModuleDestroy(module);

  /* The precision report of the original step, with a policy. */
  status =
      mpSessionParseModule(session, ref(example), ref("mlp.mlir"), &module);
  status = mpSessionPrecisionReport(session, module, ref("deny=mp.linear"));
  printf("report: %s\n", mpStatusGetName(status));
  FILE *json = fopen(reportPath, "w");
  fputs(mpSessionGetOutput(session).data, json);
  fclose(json);
  // CHECK: report: success
  status = mpSessionPrecisionReport(session, module, ref(""));
  printf("report without options: %s\n", mpStatusGetName(status));
  // CHECK: report without options: success

  /* Failure paths. A bad policy file fails mp-autocast. */
  status = mpSessionRunPipeline(
      session, module,
      ref("mp-autocast{policy-file=/nonexistent/policy.json}"));
  printFailure(session, "bad policy file", status);
  // CHECK-LABEL: bad policy file: pass failure
  // CHECK-NEXT: message: the pass pipeline 'mp-autocast{policy-file=/nonexistent/policy.json}' failed
  // CHECK-NEXT: diagnostics: mlp.mlir:0:0: error: mp-autocast: policy file '/nonexistent/policy.json': cannot read it: No such file or directory

  status = mpSessionRunPipeline(session, module, ref("mp-no-such-pass"));
  printFailure(session, "bad pipeline", status);
  // CHECK-LABEL: bad pipeline: invalid pipeline
  // CHECK-NEXT: message: invalid pass pipeline 'mp-no-such-pass'
  // CHECK-NEXT: diagnostics: MLIR Textual PassPipeline Parser:1:1: error: 'mp-no-such-pass' does not refer to a registered pass or pass pipeline

  status = mpSessionRunPipeline(session, module,
                                ref("mp-autocast{compute-type=f16 bogus=1}"));
  printFailure(session, "bad pass option", status);
  // CHECK-LABEL: bad pass option: invalid pipeline
  // CHECK-NEXT: message: invalid pass pipeline 'mp-autocast{compute-type=f16 bogus=1}'
  // CHECK-NEXT: diagnostics: <Pass-Options-Parser>: no such option bogus

  /* A bad option of a registered pipeline is captured too. */
  status = mpSessionRunPipeline(session, module,
                                ref("mp-mixed-precision-pipeline{bogus=1}"));
  printFailure(session, "bad pipeline option", status);
  // CHECK-LABEL: bad pipeline option: invalid pipeline
  // CHECK-NEXT: message: invalid pass pipeline 'mp-mixed-precision-pipeline{bogus=1}'
  // CHECK-NEXT: diagnostics: <Pass-Options-Parser>: no such option bogus
  // CHECK: failed to add `mp-mixed-precision-pipeline` with options `bogus=1`

  status = mpSessionRunPipeline(session, module,
                                ref("mp-cpu-pipeline{grid-size=many}"));
  printFailure(session, "bad pipeline option value", status);
  // CHECK-LABEL: bad pipeline option value: invalid pipeline
  // CHECK-NEXT: message: invalid pass pipeline 'mp-cpu-pipeline{grid-size=many}'
  // CHECK-NEXT: diagnostics: invalid value in the options `grid-size=many` of mp-cpu-pipeline

  status = mpSessionPrecisionReport(session, module,
                                    ref("policy-file=/nonexistent.json"));
  printFailure(session, "report with a bad policy file", status);
  // CHECK-LABEL: report with a bad policy file: pass failure
  // CHECK-NEXT: message: the pass pipeline mp-precision-report{policy-file=/nonexistent.json} failed
  // CHECK-NEXT: diagnostics: mlp.mlir:0:0: error: mp-precision-report: policy file '/nonexistent.json': cannot read it
  mlirModuleDestroy(module);

  status = mpSessionParseModule(session, ref("func.func @f( {"),
                                ref("bad.mlir"), &module);
  printFailure(session, "bad syntax", status);
  printf("  module is null: %d\n", mlirModuleIsNull(module));
  // CHECK-LABEL: bad syntax: parse error
  // CHECK-NEXT: message: cannot parse 'bad.mlir'
  // CHECK-NEXT: diagnostics: bad.mlir:1:14: error: expected non-function type
  // CHECK: module is null: 1

  status = mpSessionParseModule(
      session,
      ref("func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {\n"
          "  %0 = mp.matmul %a, %b acc(f32) : tensor<2x4x8xf32>, "
          "tensor<8x4xf32> -> tensor<4x4xf32>\n"
          "  return\n}\n"),
      ref("invalid.mlir"), &module);
  printFailure(session, "verifier", status);
  // CHECK-LABEL: verifier: verify error
  // CHECK-NEXT: message: 'invalid.mlir' does not verify
  // CHECK-NEXT: diagnostics: invalid.mlir:2:8: error: 'mp.matmul' op expects lhs of rank 2, got rank 3

  status = mpSessionRunPipeline(session, (MlirModule){NULL}, ref("cse"));
  printFailure(session, "null module", status);
  // CHECK-LABEL: null module: invalid argument
  // CHECK-NEXT: message: null module
  status = mpSessionParseModule(session, ref(kMatmul), ref("m.mlir"), NULL);
  printFailure(session, "null result pointer", status);
  // CHECK-LABEL: null result pointer: invalid argument
  // CHECK-NEXT: message: null pointer for the parsed module
  status = mpSessionPrintModule(session, (MlirModule){NULL});
  printf("print null: %s\n", mpStatusGetName(status));
  status = mpSessionPrecisionReport(session, (MlirModule){NULL}, ref(""));
  printf("report null: %s\n", mpStatusGetName(status));
  printf("null session: %s\n",
         mpStatusGetName(mpSessionParseModule((MpSession){NULL}, ref(kMatmul),
                                              ref("m.mlir"), &module)));
  // CHECK: print null: invalid argument
  // CHECK-NEXT: report null: invalid argument
  // CHECK-NEXT: null session: invalid argument

  /* After a success, no message and no diagnostics are left. */
  status = mpSessionCompile(session, ref(kMatmul), ref("m.mlir"),
                            ref("mp-autocast{compute-type=bf16},canonicalize"));
  printf("compile: %s, message '%s', diagnostics '%s'\n%s",
         mpStatusGetName(status), mpSessionGetMessage(session).data,
         mpSessionGetDiagnostics(session).data,
         mpSessionGetOutput(session).data);
  // CHECK-LABEL: compile: success, message '', diagnostics ''
  // CHECK: mp.matmul {{.*}} acc(f32) : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xf32>

  status =
      mpSessionCompile(session, ref(kMatmul), ref("m.mlir"),
                       ref("builtin.module(mp-autocast{compute-type=f64})"));
  printFailure(session, "compile failure", status);
  // CHECK-LABEL: compile failure: pass failure
  // CHECK-NEXT: message: the pass pipeline 'builtin.module(mp-autocast{compute-type=f64})' failed
  // CHECK-NEXT: diagnostics: m.mlir:0:0: error: mp-autocast: option 'compute-type': unknown compute type 'f64' (expected f16 or bf16)

  free(example);
  mpSessionDestroy(session);
  printf("done\n");
  // CHECK-LABEL: done
}

/* A crash inside a pass fails the call with MP_STATUS_PASS_CRASH instead of
 * ending the process, for each way a pass can crash; the session then still
 * compiles (test/CAPI/crash-containment.test checks the output). The crashed
 * modules are leaked, as the header says. */
static void testCrashContainment(void) {
  mpTestRegisterPasses();
  MpSession session = mpSessionCreate();
  const char *pipelines[] = {"mp-test-crash{kind=segv}",
                             "mp-test-crash{kind=abort}",
                             ("mp-mixed-precision-pipeline,"
                              "mp-test-crash{kind=fatal-error}")};
  for (int i = 0; i < 3; ++i) {
    MlirModule module;
    MpStatus status =
        mpSessionParseModule(session, ref(kMatmul), ref("m.mlir"), &module);
    if (status != MP_STATUS_SUCCESS)
      return;
    status = mpSessionRunPipeline(session, module, ref(pipelines[i]));
    printFailure(session, "crash", status);
  }
  MpStatus status = mpSessionCompile(session, ref(kMatmul), ref("m.mlir"),
                                     ref("mp-autocast{compute-type=bf16}"));
  printf("after the crashes: %s\n", mpStatusGetName(status));
  mpSessionDestroy(session);
}

/* A rank-1 f32 memref descriptor, as the C interface takes it. */
typedef struct MemRef1D {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1D;

/* The function the engine tests call: r = a * x + y. */
static const char *kAxpy =
    "func.func @axpy(%a: tensor<f32>, %x: tensor<4xf32>, %y: tensor<4xf32>)\n"
    "    -> tensor<4xf32> {\n"
    "  %ax = mp.mul %x, %a : tensor<4xf32>, tensor<f32>\n"
    "  %r = mp.add %ax, %y : tensor<4xf32>, tensor<4xf32>\n"
    "  return %r : tensor<4xf32>\n"
    "}\n";

static MemRef1D viewOf(float *data, int64_t size) {
  MemRef1D descriptor = {data, data, 0, {size}, {1}};
  return descriptor;
}

// ENGINE: create engine: success
// ENGINE-NEXT: call 0: success: 2.5 4.25 6 7
// ENGINE-NEXT: call 1: success: -0.5 -1.75 -3 -5
// ENGINE-NEXT: unknown function: invalid argument
// ENGINE-NEXT: message: the engine has no function 'nope' with a C interface (_mlir_ciface_nope)
// ENGINE: engine of a module that does not lower: pass failure
// ENGINE-NEXT: message: lowering the module failed
// ENGINE-NEXT: diagnostics: bad.mlir:3:8: error: 'mp.grad' op cannot be lowered to linalg: run mp-autodiff first
// ENGINE-NEXT: engine after failure: null
// ENGINE-NEXT: null engine pointer: invalid argument
// ENGINE-NEXT: message: null pointer for the engine
/* mp-c/Engine.h: a function on tensors lowered and JIT-compiled in this
 * process, called twice on this program's buffers; then the failures. */
static void testEngine(void) {
  MpSession session = mpSessionCreate();
  const char *source = kAxpy;
  MlirModule module;
  MpStatus status =
      mpSessionParseModule(session, ref(source), ref("axpy.mlir"), &module);
  MpEngine engine = {NULL};
  if (status == MP_STATUS_SUCCESS)
    status = mpSessionCreateEngine(session, module, ref(""), 2, &engine);
  printf("create engine: %s\n", mpStatusGetName(status));
  /* The module was lowered in place; the engine does not need it. */
  mlirModuleDestroy(module);
  if (status != MP_STATUS_SUCCESS) {
    printFailure(session, "create engine", status);
    mpSessionDestroy(session);
    return;
  }

  float a = 2.0f, x[4] = {1, 2, 3, 4}, y[4] = {0.5f, 0.25f, 0, -1}, r[4];
  MemRef1D xd = viewOf(x, 4), yd = viewOf(y, 4), rd = viewOf(r, 4);
  struct {
    float *allocated, *aligned;
    int64_t offset;
  } ad = {&a, &a, 0};
  void *descriptors[] = {&ad, &xd, &yd, &rd};
  for (int call = 0; call < 2; ++call) {
    status = mpEngineInvoke(session, engine, ref("axpy"), descriptors);
    printf("call %d: %s: %g %g %g %g\n", call, mpStatusGetName(status), r[0],
           r[1], r[2], r[3]);
    a = -1.0f;
  }

  status = mpEngineInvoke(session, engine, ref("nope"), descriptors);
  printFailure(session, "unknown function", status);
  mpEngineDestroy(engine);

  /* A module that does not lower: a pass failure, no engine. */
  const char *bad = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %l = mp.reduce_sum %x dims [0] : tensor<4xf32>\n"
                    "  %r = mp.grad %l wrt %x : tensor<f32>, tensor<4xf32>\n"
                    "  return %r : tensor<4xf32>\n"
                    "}\n";
  status = mpSessionParseModule(session, ref(bad), ref("bad.mlir"), &module);
  if (status == MP_STATUS_SUCCESS) {
    engine.ptr = (void *)1;
    status = mpSessionCreateEngine(session, module, ref(""), 2, &engine);
    printFailure(session, "engine of a module that does not lower", status);
    printf("engine after failure: %s\n", engine.ptr ? "set" : "null");
    status = mpSessionCreateEngine(session, module, ref(""), 2, NULL);
    printFailure(session, "null engine pointer", status);
    mlirModuleDestroy(module);
  } else {
    printFailure(session, "parse", status);
  }
  mpSessionDestroy(session);
}

// DEVICE: unknown device: invalid argument
// DEVICE-NEXT: message: unknown device 'tpu' (expected cpu or cuda)
// DEVICE: cpu engine: cpu, device-resident 0
// DEVICE-NEXT: device memory of a cpu engine: invalid argument
// DEVICE-NEXT: message: the engine runs on the cpu, not on a CUDA device
// DEVICE: synchronize a cpu engine: success
// NODRIVER-NEXT: cuda engine: device error
// NODRIVER-NEXT: message: --device=cuda needs the NVIDIA driver ({{.*}}.no-such-libcuda.so): {{.*}}.no-such-libcuda.so: cannot open shared object file: No such file or directory
// NODRIVER-NOT: cuda engine: cuda
// SIM-NEXT: cuda engine: cuda, device-resident 1
// SIM-NEXT: queued call 0 and call 1
// SIM-NEXT: call 0: 2.5 4.25 6 7
// SIM-NEXT: call 1: -0.5 -1.75 -3 -5
// SIM-NEXT: null event: invalid argument
// SIM-NEXT: message: null event
// SIM-NEXT: staging copy without a slot: invalid argument
// SIM-NEXT: message: no slot of the staging is acquired
// SIM-NEXT: staging acquired twice: invalid argument
// SIM-NEXT: message: the staging's slot is acquired and not released
// SIM-NEXT: staging copy past the slot: invalid argument
// SIM-NEXT: message: the range is outside the staging's slot
// The simulated driver's counts at exit: the calls made no stream
// synchronisation (the one is the engine's destruction), one event wait
// each (the staging's slots were free: no wait); only x and y came from
// pageable memory, each call's `a` from a page-locked slot (3 page-locked
// allocations: the result staging, the two slots); the results came back
// only to page-locked memory.
// SIM: mp-cuda-sim: {{[0-9]+}} launches, 1 cuStreamSynchronize, 2 cuEventSynchronize, 5 cuEventRecord; copies: 2 pageable host to device, 2 pinned host to device, 0 device to pageable host, 2 device to pinned host, 0 device to device; 3 cuMemHostAlloc
/* mp-c/Engine.h on a device: the errors, then (with a driver) axpy lowered
 * device-resident and called twice, the second call queued before the
 * first one's result is read (staged in page-locked memory behind an
 * event). */
static void testDevice(void) {
  MpSession session = mpSessionCreate();
  const char *source = kAxpy;
  MlirModule module;
  MpEngine engine = {NULL};
  mpSessionParseModule(session, ref(source), ref("axpy.mlir"), &module);
  MpStatus status = mpSessionCreateEngineOnDevice(
      session, module, ref("tpu"), ref(""), 2, &engine);
  printFailure(session, "unknown device", status);

  /* A CPU engine has no device memory. */
  status = mpSessionCreateEngineOnDevice(session, module, ref("cpu"), ref(""),
                                         2, &engine);
  mlirModuleDestroy(module);
  if (status != MP_STATUS_SUCCESS) {
    printFailure(session, "cpu engine", status);
    mpSessionDestroy(session);
    return;
  }
  printf("cpu engine: %s, device-resident %d\n",
         mpEngineGetDevice(engine).data, mpEngineIsDeviceResident(engine));
  void *pointer = NULL;
  status = mpEngineDeviceAlloc(session, engine, 16, &pointer);
  printFailure(session, "device memory of a cpu engine", status);
  status = mpEngineSynchronize(session, engine);
  printf("synchronize a cpu engine: %s\n", mpStatusGetName(status));
  mpEngineDestroy(engine);

  mpSessionParseModule(session, ref(source), ref("axpy.mlir"), &module);
  status = mpSessionCreateEngineOnDevice(session, module, ref("cuda"),
                                         ref("chip=sm_80 binary-format=isa"),
                                         2, &engine);
  mlirModuleDestroy(module);
  if (status != MP_STATUS_SUCCESS) {
    printFailure(session, "cuda engine", status);
    mpSessionDestroy(session);
    return;
  }
  printf("cuda engine: %s, device-resident %d\n",
         mpEngineGetDevice(engine).data, mpEngineIsDeviceResident(engine));
  float a = 2.0f, x[4] = {1, 2, 3, 4}, y[4] = {0.5f, 0.25f, 0, -1};
  void *da = NULL, *dx = NULL, *dy = NULL, *dr = NULL, *staging = NULL;
  MpEngineEvent events[2] = {{NULL}, {NULL}};
  MpEngineStaging inputs = {NULL};
  status = MP_STATUS_SUCCESS;
#define TRY(call)                                                              \
  if (status == MP_STATUS_SUCCESS)                                             \
  status = (call)
  TRY(mpEngineDeviceAlloc(session, engine, 4, &da));
  TRY(mpEngineDeviceAlloc(session, engine, 16, &dx));
  TRY(mpEngineDeviceAlloc(session, engine, 16, &dy));
  TRY(mpEngineDeviceAlloc(session, engine, 16, &dr));
  TRY(mpEngineHostAlloc(session, engine, 32, &staging));
  TRY(mpEngineEventCreate(session, engine, &events[0]));
  TRY(mpEngineEventCreate(session, engine, &events[1]));
  TRY(mpEngineStagingCreate(session, engine, 4, &inputs));
  TRY(mpEngineCopy(session, engine, dx, x, 16));
  TRY(mpEngineCopy(session, engine, dy, y, 16));
  MemRef1D xd = viewOf(dx, 4), yd = viewOf(dy, 4), rd = viewOf(dr, 4);
  struct {
    void *allocated, *aligned;
    int64_t offset;
  } ad = {da, da, 0};
  void *descriptors[] = {&ad, &xd, &yd, &rd};
  for (int call = 0; call < 2; ++call) {
    /* Each call's input `a` goes through a page-locked slot of `inputs`:
     * the next call writes the other slot while this copy may be pending. */
    void *slot = NULL;
    TRY(mpEngineStagingAcquire(session, engine, inputs, &slot));
    if (status == MP_STATUS_SUCCESS)
      memcpy(slot, &a, 4);
    TRY(mpEngineStagingCopy(session, engine, inputs, da, 0, 4));
    TRY(mpEngineStagingRelease(session, engine, inputs));
    TRY(mpEngineInvoke(session, engine, ref("axpy"), descriptors));
    TRY(mpEngineCopy(session, engine, (float *)staging + 4 * call, dr, 16));
    TRY(mpEngineEventRecord(session, engine, events[call]));
    a = -1.0f;
  }
  if (status == MP_STATUS_SUCCESS)
    printf("queued call 0 and call 1\n");
  for (int call = 0; call < 2 && status == MP_STATUS_SUCCESS; ++call) {
    TRY(mpEngineEventSynchronize(session, engine, events[call]));
    float *r = (float *)staging + 4 * call;
    if (status == MP_STATUS_SUCCESS)
      printf("call %d: %g %g %g %g\n", call, r[0], r[1], r[2], r[3]);
  }
#undef TRY
  if (status != MP_STATUS_SUCCESS)
    printFailure(session, "cuda engine calls", status);
  MpEngineEvent none = {NULL};
  status = mpEngineEventRecord(session, engine, none);
  printFailure(session, "null event", status);
  status = mpEngineStagingCopy(session, engine, inputs, da, 0, 4);
  printFailure(session, "staging copy without a slot", status);
  void *slot = NULL;
  mpEngineStagingAcquire(session, engine, inputs, &slot);
  status = mpEngineStagingAcquire(session, engine, inputs, &slot);
  printFailure(session, "staging acquired twice", status);
  status = mpEngineStagingCopy(session, engine, inputs, da, 2, 4);
  printFailure(session, "staging copy past the slot", status);
  mpEngineStagingRelease(session, engine, inputs);
  mpEngineStagingDestroy(inputs);
  for (int i = 0; i < 2; ++i)
    mpEngineEventDestroy(events[i]);
  void *blocks[] = {da, dx, dy, dr};
  for (int i = 0; i < 4; ++i)
    mpEngineDeviceFree(session, engine, blocks[i]);
  mpEngineHostFree(session, engine, staging);
  mpEngineDestroy(engine);
  mpSessionDestroy(session);
  /* Before the simulator's counts, which it prints at exit. */
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--crash") == 0) {
    testCrashContainment();
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "--engine") == 0) {
    testEngine();
    return 0;
  }
  if (argc == 2 && strcmp(argv[1], "--device") == 0) {
    testDevice();
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: %s train_step.mlir report.json | --crash\n",
            argv[0]);
    return 2;
  }
  testDialectAndGeneratedPasses();
  testSession(argv[1], argv[2]);
  return 0;
}
