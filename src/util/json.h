/*
 * json.h — printing cJSON values within a byte cap.
 */
#ifndef SBX_UTIL_JSON_H
#define SBX_UTIL_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * o printed unformatted, or NULL when the text would be longer than cap
 * bytes.  It is printed into a buffer of the cap, so a longer text is
 * never built whole (a string of control characters prints 6 bytes for
 * each); pages the print does not reach are never touched.  malloc'd,
 * its length in *len.
 */
char *json_print_capped(const cJSON *o, size_t cap, size_t *len);

#endif
