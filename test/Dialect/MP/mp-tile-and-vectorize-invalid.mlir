// RUN: mp-opt %s -mp-tile-and-vectorize="matmul-tile-sizes=8,32" -verify-diagnostics -o /dev/null
// RUN: mp-opt %s -mp-tile-and-vectorize="matmul-tile-sizes=4,0,16" -verify-diagnostics -o /dev/null
// RUN: mp-opt %s -mp-tile-and-vectorize="tile-sizes=8,-1" -verify-diagnostics -o /dev/null

// expected-error @+1 {{mp-tile-and-vectorize: 'matmul-tile-sizes' needs three positive sizes (M, N, K), 'tile-sizes' positive sizes}}
func.func @any() {
  return
}
