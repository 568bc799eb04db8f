// SPDX-License-Identifier: MIT
/* Parking vCPU threads (vmm/run/pause.c) without KVM: threads that loop
 * the way the vCPU loop does (park while pausing, else one "run" turn
 * that counts), held by one or two owners, one let run alone (a single
 * step), and a run that ends while an owner waits. */
#include "tests/unit/unit.h"
#include "vmm/run/pause.h"
#include "vmm/vcpu.h"

#include <pthread.h>

#define N	3

static struct vcpu vcpus[N];
static struct vm_pause p;
static volatile bool stopping;
static volatile unsigned long turns[N];
static pthread_t threads[N];

static void *fake_loop(void *arg)
{
	struct vcpu *v = arg;

	while (!stopping) {
		if (p.pausing) {
			vm_pause_park(&p, v);
			if (stopping)
				break;
		}
		__atomic_add_fetch(&turns[v->id], 1, __ATOMIC_SEQ_CST);
		usleep(100);
	}
	return NULL;
}

static void start(unsigned int n)
{
	stopping = false;
	for (unsigned int i = 0; i < N; i++) {
		memset(&vcpus[i], 0, sizeof(vcpus[i]));
		vcpus[i].id = i;	/* not started: kicks do nothing */
		turns[i] = 0;
	}
	ck_assert_int_eq(vm_pause_init(&p, vcpus, N, &stopping), 0);
	for (unsigned int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, fake_loop,
						&vcpus[i]), 0);
}

static void finish(unsigned int n)
{
	stopping = true;
	vm_pause_wake(&p);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	vm_pause_destroy(&p);
}

static unsigned long get(unsigned int i)
{
	return __atomic_load_n(&turns[i], __ATOMIC_SEQ_CST);
}

/* Waits (bounded) until vCPU i has made more than `than` turns. */
static bool runs_past(unsigned int i, unsigned long than)
{
	for (int k = 0; k < 5000; k++) {
		if (get(i) > than)
			return true;
		usleep(1000);
	}
	return false;
}

START_TEST(hold_parks_all_release_resumes)
{
	unsigned long before[N];

	start(N);
	vm_pause_hold(&p);
	ck_assert_int_eq(vm_pause_wait(&p), 0);
	for (unsigned int i = 0; i < N; i++) {
		ck_assert(vm_pause_is_parked(&p, i));
		before[i] = get(i);
	}
	usleep(20000);
	for (unsigned int i = 0; i < N; i++)
		ck_assert_uint_eq(get(i), before[i]);	/* nobody ran */
	vm_pause_release(&p);
	for (unsigned int i = 0; i < N; i++)
		ck_assert(runs_past(i, before[i]));
	finish(N);
}
END_TEST

START_TEST(two_owners_last_release_resumes)
{
	unsigned long before;

	start(N);
	vm_pause_hold(&p);		/* the debugger */
	ck_assert_int_eq(vm_pause_wait(&p), 0);
	vm_pause_hold(&p);		/* a snapshot meanwhile */
	ck_assert_int_eq(vm_pause_wait(&p), 0);
	vm_pause_release(&p);		/* snapshot done */
	before = get(0);
	usleep(20000);
	ck_assert_uint_eq(get(0), before);	/* still held by one */
	ck_assert(p.pausing);
	vm_pause_release(&p);
	ck_assert(!p.pausing);
	ck_assert(runs_past(0, before));
	/* A release without a hold changes nothing. */
	vm_pause_release(&p);
	ck_assert(!p.pausing);
	finish(N);
}
END_TEST

START_TEST(let_one_run_alone)
{
	unsigned long b0, b1, b2;

	start(N);
	vm_pause_hold(&p);
	ck_assert_int_eq(vm_pause_wait(&p), 0);
	b0 = get(0);
	b2 = get(2);
	b1 = get(1);
	vm_pause_let_run(&p, 1, true);
	ck_assert(runs_past(1, b1));
	/* wait does not wait for the one let run */
	ck_assert_int_eq(vm_pause_wait(&p), 0);
	ck_assert_uint_eq(get(0), b0);
	ck_assert_uint_eq(get(2), b2);
	vm_pause_let_run(&p, 1, false);	/* its step is done */
	ck_assert_int_eq(vm_pause_wait(&p), 0);
	ck_assert(vm_pause_is_parked(&p, 1));
	b1 = get(1);
	usleep(20000);
	ck_assert_uint_eq(get(1), b1);
	/* Out-of-range ids are ignored. */
	vm_pause_let_run(&p, N, true);
	ck_assert(!vm_pause_is_parked(&p, N));
	vm_pause_release(&p);
	ck_assert(runs_past(0, b0));
	ck_assert(runs_past(1, b1));
	finish(N);
}
END_TEST

static void *stop_later(void *arg)
{
	(void)arg;
	usleep(30000);
	stopping = true;
	return NULL;
}

/* vCPU 2 never parks (its thread is not running): the wait ends when
 * the run does, with -1. */
START_TEST(wait_ends_with_the_run)
{
	pthread_t t;

	start(2);
	vm_pause_hold(&p);
	pthread_create(&t, NULL, stop_later, NULL);
	ck_assert_int_eq(vm_pause_wait(&p), -1);
	pthread_join(t, NULL);
	finish(2);
}
END_TEST

static Suite *pause_suite(void)
{
	Suite *s = suite_create("pause");
	TCase *tc = tcase_create("park");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, hold_parks_all_release_resumes);
	tcase_add_test(tc, two_owners_last_release_resumes);
	tcase_add_test(tc, let_one_run_alone);
	tcase_add_test(tc, wait_ends_with_the_run);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(pause_suite());
}
