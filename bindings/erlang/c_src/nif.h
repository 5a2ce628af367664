/*
 * What the parts of the bufkit NIF share: the resource types and atoms made at load, the status
 * helpers, and each part's NIF functions for the table in bufkit_nif.c. One file per object:
 * buffer.c, pool.c, inflate.c, extract.c, archive.c.
 */
#ifndef BUFKIT_NIF_H
#define BUFKIT_NIF_H

#define _GNU_SOURCE /* clock_gettime, pthread_cond_timedwait, strerrorname_np under -std=c11 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <erl_nif.h>

#include "bufkit.h"

/* Work of at least this many inflated bytes runs on a dirty scheduler (~0.5 ms of work). */
#define DIRTY_INFLATE ((size_t)256 * 1024)

extern ErlNifResourceType *buffer_type, *pool_type, *lease_type, *archive_type, *stream_type, *reader_type,
    *incoming_type;
extern ERL_NIF_TERM atom_ok, atom_error, atom_closed;

ERL_NIF_TERM status_atom(ErlNifEnv *env, bk_status status);
ERL_NIF_TERM error_term(ErlNifEnv *env, bk_status status);
ERL_NIF_TERM ok_resource(ErlNifEnv *env, void *res);
ERL_NIF_TERM ok_or_error(ErlNifEnv *env, bk_status status);
int size_option(ErlNifEnv *env, ERL_NIF_TERM map, const char *key, size_t *out);

void buffer_dtor(ErlNifEnv *env, void *obj);
void pool_dtor(ErlNifEnv *env, void *obj);
void lease_dtor(ErlNifEnv *env, void *obj);
void archive_dtor(ErlNifEnv *env, void *obj);
void stream_dtor(ErlNifEnv *env, void *obj);
void reader_dtor(ErlNifEnv *env, void *obj);
void incoming_dtor(ErlNifEnv *env, void *obj);

#endif
