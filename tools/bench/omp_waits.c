// An OMPT tool (OpenMP 5's tool interface, which libomp calls where
// OMP_TOOL_LIBRARIES names the tool) that measures where the threads of a
// multi-threaded mp-run step wait. Per parallel region, identified by the
// address its fork returns to (the outlined loop nest of mp-cpu-pipeline
// that starts it), it adds up:
//   - the regions started,
//   - the time thread 0 (the one that forks) spends inside them,
//   - the time each of threads 0 and 1 waits in their barriers (the join:
//     the slower thread's extra work, or a worker waiting until the next
//     fork while thread 0 runs serial code),
//   - the time thread 0 spends between the end of the previous region and
//     the start of this one (the serial code before it).
// At exit it writes one line per region to $OMP_WAITS_OUT: the address, then
// those figures in microseconds. tools/bench/omp_waits.py builds it, runs
// mp-run with it and names the regions' functions from the JIT's perf dump.
//
// Build: clang -O2 -shared -fPIC omp_waits.c -o omp_waits.so (omp-tools.h
// comes with clang's headers).

#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kSlots = 8192 };

struct Region {
  const void *address;
  long count;
  double inside, gapBefore, wait[2];
};

static struct Region regions[kSlots];
static _Thread_local int threadIndex = -1;
static _Thread_local long currentSlot = -1;
static _Thread_local double taskStart, taskEnd = -1, waitStart;

static double microseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

/// The slot of the region forked at `address` (open addressing; the
/// forking thread alone inserts).
static long slotOf(const void *address) {
  uintptr_t h = ((uintptr_t)address >> 4) % kSlots;
  for (long probe = 0; probe < kSlots; ++probe) {
    long slot = (h + probe) % kSlots;
    if (regions[slot].address == address || !regions[slot].address) {
      regions[slot].address = address;
      return slot;
    }
  }
  return 0;
}

static void onParallelBegin(ompt_data_t *encountering, const ompt_frame_t *frame,
                            ompt_data_t *parallel, unsigned requested,
                            int flags, const void *address) {
  long slot = slotOf(address);
  regions[slot].count++;
  parallel->value = slot;
}

static void onImplicitTask(ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task,
                           unsigned actual, unsigned index, int flags) {
  double now = microseconds();
  if (endpoint == ompt_scope_begin) {
    threadIndex = index;
    if (parallel)
      currentSlot = parallel->value;
    taskStart = now;
    if (index == 0 && currentSlot >= 0 && taskEnd >= 0)
      regions[currentSlot].gapBefore += now - taskEnd;
    return;
  }
  taskEnd = now;
  if (index == 0 && currentSlot >= 0)
    regions[currentSlot].inside += now - taskStart;
}

static void onSyncRegionWait(ompt_sync_region_t kind,
                             ompt_scope_endpoint_t endpoint,
                             ompt_data_t *parallel, ompt_data_t *task,
                             const void *address) {
  if (endpoint == ompt_scope_begin) {
    waitStart = microseconds();
    return;
  }
  long slot = parallel ? (long)parallel->value : currentSlot;
  if (slot >= 0 && slot < kSlots && threadIndex >= 0 && threadIndex < 2)
    regions[slot].wait[threadIndex] += microseconds() - waitStart;
}

static int initialize(ompt_function_lookup_t lookup, int device,
                      ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)onParallelBegin);
  set(ompt_callback_implicit_task, (ompt_callback_t)onImplicitTask);
  set(ompt_callback_sync_region_wait, (ompt_callback_t)onSyncRegionWait);
  return 1;
}

static void finalize(ompt_data_t *data) {
  const char *path = getenv("OMP_WAITS_OUT");
  FILE *out = fopen(path ? path : "omp_waits.txt", "w");
  if (!out)
    return;
  for (long slot = 0; slot < kSlots; ++slot) {
    const struct Region *r = &regions[slot];
    if (r->address)
      fprintf(out, "%p %ld %.1f %.1f %.1f %.1f\n", r->address, r->count,
              r->inside, r->gapBefore, r->wait[0], r->wait[1]);
  }
  fclose(out);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned version,
                                          const char *runtime) {
  static ompt_start_tool_result_t result = {&initialize, &finalize, {0}};
  return &result;
}
