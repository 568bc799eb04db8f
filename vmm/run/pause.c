// SPDX-License-Identifier: MIT
/* Parking vCPUs (pause.h). */
#include "vmm/run/pause.h"
#include "vmm/vcpu.h"

#include <stdlib.h>
#include <time.h>

#define WAIT_SLICE_NS	10000000L	/* re-check stopping every 10 ms */

int vm_pause_init(struct vm_pause *p, struct vcpu *vcpus, unsigned int n,
		  const volatile bool *stopping)
{
	pthread_condattr_t a;

	p->running = calloc(n ? n : 1, sizeof(*p->running));
	p->is_parked = calloc(n ? n : 1, sizeof(*p->is_parked));
	if (!p->running || !p->is_parked) {
		free(p->running);
		free(p->is_parked);
		p->running = p->is_parked = NULL;
		return -1;
	}

	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &a);
	pthread_condattr_destroy(&a);
	p->pausing = false;
	p->holds = 0;
	p->parked = 0;
	p->vcpus = vcpus;
	p->n = n;
	p->stopping = stopping;
	return 0;
}

void vm_pause_destroy(struct vm_pause *p)
{
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->running);
	free(p->is_parked);
	p->running = p->is_parked = NULL;
}

void vm_pause_hold(struct vm_pause *p)
{
	pthread_mutex_lock(&p->lock);
	p->holds++;
	__atomic_store_n(&p->pausing, true, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&p->lock);
}

static void timed_wait(struct vm_pause *p)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_nsec += WAIT_SLICE_NS;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->cond, &p->lock, &t);
}

/* Under the lock: every vCPU not let run is parked. */
static bool all_parked(struct vm_pause *p)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (!p->running[i] && !p->is_parked[i])
			return false;
	return true;
}

int vm_pause_wait(struct vm_pause *p)
{
	int rc = 0;

	for (unsigned int i = 0; i < p->n; i++)
		if (!p->running[i])
			vcpu_kick(&p->vcpus[i]);
	pthread_mutex_lock(&p->lock);
	while (!all_parked(p)) {
		if (*p->stopping) {
			rc = -1;
			break;
		}
		timed_wait(p);
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

void vm_pause_release(struct vm_pause *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->holds && !--p->holds) {
		__atomic_store_n(&p->pausing, false, __ATOMIC_SEQ_CST);
		for (unsigned int i = 0; i < p->n; i++)
			p->running[i] = false;
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void vm_pause_let_run(struct vm_pause *p, unsigned int id, bool run)
{
	if (id >= p->n)
		return;
	pthread_mutex_lock(&p->lock);
	p->running[id] = run;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

unsigned int vm_pause_holds(struct vm_pause *p)
{
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	n = p->holds;
	pthread_mutex_unlock(&p->lock);
	return n;
}

bool vm_pause_is_parked(struct vm_pause *p, unsigned int id)
{
	bool r;

	if (id >= p->n)
		return false;
	pthread_mutex_lock(&p->lock);
	r = p->is_parked[id];
	pthread_mutex_unlock(&p->lock);
	return r;
}

void vm_pause_wake(struct vm_pause *p)
{
	pthread_mutex_lock(&p->lock);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void vm_pause_park(void *ctx, struct vcpu *v)
{
	struct vm_pause *p = ctx;
	unsigned int id = v->id;

	if (id >= p->n)
		return;
	pthread_mutex_lock(&p->lock);
	p->is_parked[id] = true;
	p->parked++;
	pthread_cond_broadcast(&p->cond);
	while (p->pausing && !p->running[id] && !*p->stopping)
		timed_wait(p);
	p->parked--;
	p->is_parked[id] = false;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}
