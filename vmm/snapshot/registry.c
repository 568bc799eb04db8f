// SPDX-License-Identifier: MIT
/* The section registry (registry.h). */
#include "vmm/snapshot/registry.h"

#include <stdlib.h>
#include <string.h>

void snap_registry_init(struct snap_registry *r)
{
	memset(r, 0, sizeof(*r));
}

void snap_registry_free(struct snap_registry *r)
{
	free(r->state);
	free(r->mem);
	snap_registry_init(r);
}

static bool taken(const struct snap_registry *r, uint32_t type,
		  uint32_t instance)
{
	for (size_t i = 0; i < r->nstate; i++)
		if (r->state[i].type == type && r->state[i].instance == instance)
			return true;
	return snap_memory_find(r, type, instance) != NULL;
}

/* Grows *v (elements of size sz) to hold one more. */
static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = realloc(*v, c * sz);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

int snap_add_state(struct snap_registry *r, const struct snap_state_ops *o)
{
	if (snap_type_is_memory(o->type) || o->phase >= SNAP_PHASES ||
	    taken(r, o->type, o->instance) ||
	    grow((void **)&r->state, &r->state_cap, r->nstate,
		 sizeof(*r->state)) < 0)
		return -1;
	r->state[r->nstate++] = *o;
	return 0;
}

int snap_add_memory(struct snap_registry *r, const struct snap_memory *m)
{
	if (!snap_type_is_memory(m->type) || !m->size ||
	    (m->size | (uintptr_t)m->host) % SNAP_PAGE ||
	    taken(r, m->type, m->instance) ||
	    grow((void **)&r->mem, &r->mem_cap, r->nmem, sizeof(*r->mem)) < 0)
		return -1;
	r->mem[r->nmem++] = *m;
	return 0;
}

int snap_add_quiesce(struct snap_registry *r, struct snap_quiesce q)
{
	if (r->nquiesce == SNAP_MAX_QUIESCE)
		return -1;
	r->quiesce[r->nquiesce++] = q;
	return 0;
}

int snap_quiesce_all(struct snap_registry *r)
{
	for (size_t i = 0; i < r->nquiesce; i++)
		if (r->quiesce[i].quiesce(r->quiesce[i].ctx) < 0)
			return -1;
	return 0;
}

void snap_resume_all(struct snap_registry *r)
{
	for (size_t i = 0; i < r->nquiesce; i++)
		if (r->quiesce[i].resume)
			r->quiesce[i].resume(r->quiesce[i].ctx);
}

void snap_load_order(const struct snap_registry *r, size_t *order)
{
	size_t k = 0;

	for (int ph = 0; ph < SNAP_PHASES; ph++)
		for (size_t i = 0; i < r->nstate; i++)
			if ((int)r->state[i].phase == ph)
				order[k++] = i;
}

struct snap_memory *snap_memory_find(const struct snap_registry *r,
				     uint32_t type, uint32_t instance)
{
	for (size_t i = 0; i < r->nmem; i++)
		if (r->mem[i].type == type && r->mem[i].instance == instance)
			return &r->mem[i];
	return NULL;
}
