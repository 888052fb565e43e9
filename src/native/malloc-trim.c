/*
 * A Node-API addon with one function, trim(): glibc's malloc_trim(0). It gives back to the
 * operating system the free pages of every malloc arena, the pages between blocks still in use
 * included, which glibc otherwise keeps for good (it returns only the free top of a heap).
 * src/native/malloc-trim.ts builds it at install time, and long-running processes call it every
 * 10 s.
 *
 * Node-API 1 is enough, and its binary interface is stable: one build serves every Node version
 * of the install's platform.
 */
#define NAPI_VERSION 1
#include <malloc.h>
#include <node_api.h>

/* trim(): true when memory was given back to the operating system. */
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  if (napi_get_boolean(env, malloc_trim(0) != 0, &released) != napi_ok) return NULL;
  return released;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", function) != napi_ok) return NULL;
  return exports;
}
