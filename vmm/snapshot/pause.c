// SPDX-License-Identifier: MIT
/* Parking vCPUs (pause.h). */
#include "vmm/snapshot/pause.h"
#include "vmm/vcpu.h"

#include <errno.h>
#include <time.h>

#define WAIT_SLICE_NS	10000000L	/* re-check stopping every 10 ms */

void snap_pause_init(struct snap_pause *p, struct vcpu *vcpus,
		     unsigned int n, const volatile bool *stopping)
{
	pthread_condattr_t a;

	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &a);
	pthread_condattr_destroy(&a);
	p->pausing = false;
	p->parked = 0;
	p->vcpus = vcpus;
	p->n = n;
	p->stopping = stopping;
}

void snap_pause_destroy(struct snap_pause *p)
{
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
}

void snap_pause_request(struct snap_pause *p)
{
	__atomic_store_n(&p->pausing, true, __ATOMIC_SEQ_CST);
}

static void timed_wait(struct snap_pause *p)
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

int snap_pause_wait(struct snap_pause *p)
{
	int rc = 0;

	snap_pause_request(p);
	for (unsigned int i = 0; i < p->n; i++)
		vcpu_kick(&p->vcpus[i]);
	pthread_mutex_lock(&p->lock);
	while (p->parked < p->n) {
		if (*p->stopping) {
			rc = -1;
			break;
		}
		timed_wait(p);
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

void snap_pause_resume(struct snap_pause *p)
{
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->pausing, false, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void snap_pause_park(void *ctx, struct vcpu *v)
{
	struct snap_pause *p = ctx;

	(void)v;
	pthread_mutex_lock(&p->lock);
	p->parked++;
	pthread_cond_broadcast(&p->cond);
	while (p->pausing && !*p->stopping)
		timed_wait(p);
	p->parked--;
	pthread_mutex_unlock(&p->lock);
}
