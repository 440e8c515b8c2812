/* Runs compileStep (the example of docs/CAPI.md, compiled with this file) on
 * the file given. */
#include <stdio.h>
#include <stdlib.h>

int compileStep(const char *text);

int main(int argc, char **argv) {
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return 2;
  static char text[1 << 20];
  size_t size = fread(text, 1, sizeof(text) - 1, file);
  text[size] = 0;
  fclose(file);
  return compileStep(text);
}
