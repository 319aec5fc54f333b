/*
 * cjson.h — cJSON, opened at run time.  Include this, never
 * <cjson/cJSON.h>: the code calls cJSON_* as usual, and each name below
 * goes through a table bound from "libcjson.so.1" on first use.
 *
 * Why: a library linked at build time is loaded by every exec of the
 * binary, and sandbx execs itself for each confined command (the helper),
 * which never parses JSON; nor does sandbox-run's harness.  Linking
 * libcjson cost those two execs 0.1-0.18 ms each (docs/internals/spawn.md).
 *
 * The subcommands that use JSON call cjson_load() first and report its
 * error like any other; after that every cJSON_* call is one load of a
 * pointer more.  A call before cjson_load() binds the table then, and
 * when the library cannot be loaded it says so and exits (status 1): a
 * program that cannot parse JSON can do nothing safe instead.
 * The types, cJSON_ArrayForEach and the constants come from the header.
 */
#ifndef SBX_UTIL_CJSON_H
#define SBX_UTIL_CJSON_H

#include <cjson/cJSON.h>

/* Every cJSON function sandbx (and its tests) calls.  A new one goes here
 * and in the #defines below; the build fails until it does, since its
 * name would otherwise be an undefined reference. */
#define SBX_CJSON_FUNCS(X) \
	X(AddArrayToObject) \
	X(AddBoolToObject) \
	X(AddItemToArray) \
	X(AddItemToObject) \
	X(AddNullToObject) \
	X(AddNumberToObject) \
	X(AddObjectToObject) \
	X(AddStringToObject) \
	X(AddTrueToObject) \
	X(CreateArray) \
	X(CreateArrayReference) \
	X(CreateObject) \
	X(CreateString) \
	X(CreateStringReference) \
	X(Delete) \
	X(DeleteItemFromArray) \
	X(DetachItemFromArray) \
	X(DetachItemFromObjectCaseSensitive) \
	X(Duplicate) \
	X(GetArrayItem) \
	X(GetArraySize) \
	X(GetObjectItem) \
	X(GetObjectItemCaseSensitive) \
	X(GetStringValue) \
	X(InitHooks) \
	X(IsArray) \
	X(IsBool) \
	X(IsNumber) \
	X(IsObject) \
	X(IsString) \
	X(IsTrue) \
	X(Parse) \
	X(ParseWithLength) \
	X(ParseWithLengthOpts) \
	X(ParseWithOpts) \
	X(PrintPreallocated) \
	X(PrintUnformatted)

struct sbx_cjson {
#define SBX_CJSON_FIELD(name) __typeof__(cJSON_##name) *name;
	SBX_CJSON_FUNCS(SBX_CJSON_FIELD)
#undef SBX_CJSON_FIELD
};

/* The bound table, once cjson_load() succeeded; NULL before. */
extern const struct sbx_cjson *sbx_cjson_table;

/* Bind the table, once (any thread): 0, or -1 with *err (malloc'd) naming
 * the library and the package to install. */
int cjson_load(char **err);

/* The table, binding it first when needed; exits when that fails. */
const struct sbx_cjson *sbx_cjson_need(void);

static inline const struct sbx_cjson *sbx_cjson(void)
{
	const struct sbx_cjson *t = __atomic_load_n(&sbx_cjson_table, __ATOMIC_ACQUIRE);
	return t ? t : sbx_cjson_need();
}

#define cJSON_AddArrayToObject (sbx_cjson()->AddArrayToObject)
#define cJSON_AddBoolToObject (sbx_cjson()->AddBoolToObject)
#define cJSON_AddItemToArray (sbx_cjson()->AddItemToArray)
#define cJSON_AddItemToObject (sbx_cjson()->AddItemToObject)
#define cJSON_AddNullToObject (sbx_cjson()->AddNullToObject)
#define cJSON_AddNumberToObject (sbx_cjson()->AddNumberToObject)
#define cJSON_AddObjectToObject (sbx_cjson()->AddObjectToObject)
#define cJSON_AddStringToObject (sbx_cjson()->AddStringToObject)
#define cJSON_AddTrueToObject (sbx_cjson()->AddTrueToObject)
#define cJSON_CreateArray (sbx_cjson()->CreateArray)
#define cJSON_CreateArrayReference (sbx_cjson()->CreateArrayReference)
#define cJSON_CreateObject (sbx_cjson()->CreateObject)
#define cJSON_CreateString (sbx_cjson()->CreateString)
#define cJSON_CreateStringReference (sbx_cjson()->CreateStringReference)
#define cJSON_Delete (sbx_cjson()->Delete)
#define cJSON_DeleteItemFromArray (sbx_cjson()->DeleteItemFromArray)
#define cJSON_DetachItemFromArray (sbx_cjson()->DetachItemFromArray)
#define cJSON_DetachItemFromObjectCaseSensitive (sbx_cjson()->DetachItemFromObjectCaseSensitive)
#define cJSON_Duplicate (sbx_cjson()->Duplicate)
#define cJSON_GetArrayItem (sbx_cjson()->GetArrayItem)
#define cJSON_GetArraySize (sbx_cjson()->GetArraySize)
#define cJSON_GetObjectItem (sbx_cjson()->GetObjectItem)
#define cJSON_GetObjectItemCaseSensitive (sbx_cjson()->GetObjectItemCaseSensitive)
#define cJSON_GetStringValue (sbx_cjson()->GetStringValue)
#define cJSON_InitHooks (sbx_cjson()->InitHooks)
#define cJSON_IsArray (sbx_cjson()->IsArray)
#define cJSON_IsBool (sbx_cjson()->IsBool)
#define cJSON_IsNumber (sbx_cjson()->IsNumber)
#define cJSON_IsObject (sbx_cjson()->IsObject)
#define cJSON_IsString (sbx_cjson()->IsString)
#define cJSON_IsTrue (sbx_cjson()->IsTrue)
#define cJSON_Parse (sbx_cjson()->Parse)
#define cJSON_ParseWithLength (sbx_cjson()->ParseWithLength)
#define cJSON_ParseWithLengthOpts (sbx_cjson()->ParseWithLengthOpts)
#define cJSON_ParseWithOpts (sbx_cjson()->ParseWithOpts)
#define cJSON_PrintPreallocated (sbx_cjson()->PrintPreallocated)
#define cJSON_PrintUnformatted (sbx_cjson()->PrintUnformatted)

#endif
