// SPDX-License-Identifier: MIT
#include "vmm/machine/platform.h"
#include "vmm/layout.h"
#include "vmm/run/timing.h"
#include "vmm/vm.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void rtc_irq(void *ctx, int level)
{
	struct vm *vm = ctx;

	gsi_set_level(&vm->gsi, ABI_RTC_IRQ, level);
}

static void rtc_changed(void *ctx)
{
	struct platform *p = ((struct vm *)ctx)->platform;

	pthread_mutex_lock(&p->lock);
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* Sleeps until the RTC's next alarm or update interrupt (CLOCK_REALTIME,
 * the RTC's own clock, is also the condition variable's), or until the
 * guest reprograms it. */
static void *rtc_timer(void *arg)
{
	struct platform *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->quit) {
		uint64_t t;

		if (p->paused) {
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		p->polling = true;
		pthread_mutex_unlock(&p->lock);
		rtc_poll(&p->rtc);
		t = rtc_next_event_ns(&p->rtc);
		pthread_mutex_lock(&p->lock);
		p->polling = false;
		pthread_cond_broadcast(&p->idle);
		if (p->quit || p->paused)
			continue;
		if (!t) {
			pthread_cond_wait(&p->cond, &p->lock);
		} else {
			struct timespec ts = {
				.tv_sec = (time_t)(t / 1000000000ull),
				.tv_nsec = (long)(t % 1000000000ull),
			};

			pthread_cond_timedwait(&p->cond, &p->lock, &ts);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void platform_pause_timer(struct platform *p, bool pause)
{
	pthread_mutex_lock(&p->lock);
	p->paused = pause;
	pthread_cond_signal(&p->cond);
	while (pause && p->polling)
		pthread_cond_wait(&p->idle, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

/* The thread starts with every signal blocked: signals are the main
 * thread's (signalfd), kicks the vCPU threads'. */
static int start_timer(struct platform *p)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&p->timer, NULL, rtc_timer, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return err ? -1 : 0;
}

/* Its lines are ISA IRQs: GSIs of the same number. */
static void testdev_irq(void *ctx, uint32_t line, int level)
{
	struct vm *vm = ctx;

	gsi_set_level(&vm->gsi, line, level);
}

/* Unmaps the host page behind gpa for a moment: KVM's MMU notifier drops
 * its mapping, so the guest's next access faults it back in.  RAM only;
 * anything else is ignored, as QEMU ignores it. */
static void testdev_flush(void *ctx, uint64_t gpa)
{
	struct vm *vm = ctx;
	void *page = gmem_ptr(&vm->mem, gpa, 4096);

	if (!page)
		return;
	if (mprotect(page, 4096, PROT_NONE) == 0)
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

static int add_ranges(struct vm *vm, struct platform *p)
{
	return bus_register(&vm->pio, LAYOUT_FW_CFG_PORT, FW_CFG_PORTS_LEN,
			    &fw_cfg_ops, &p->fw_cfg, "fw-cfg") < 0 ||
	       bus_register(&vm->pio, ABI_RTC_PORT, RTC_PORTS_LEN, &rtc_ops,
			    &p->rtc, "rtc") < 0 ||
	       bus_register(&vm->pio, LAYOUT_PC_TESTDEV_PORT,
			    PC_TESTDEV_PORTS_LEN, &pc_testdev_port_ops,
			    &p->testdev, "pc-testdev") < 0 ||
	       bus_register(&vm->pio, LAYOUT_PC_TESTDEV_IRQ_PORT,
			    PC_TESTDEV_IRQ_LINES, &pc_testdev_irq_ops,
			    &p->testdev, "pc-testdev-irq") < 0 ||
	       bus_register(&vm->mmio, LAYOUT_PC_TESTDEV_IOMEM,
			    PC_TESTDEV_IOMEM_LEN, &pc_testdev_iomem_ops,
			    &p->testdev, "pc-testdev-mem") < 0 ? -1 : 0;
}

int platform_add(struct vm *vm)
{
	struct platform *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	vm->platform = p;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	pthread_cond_init(&p->idle, NULL);
	fw_cfg_init(&p->fw_cfg, vm->cfg->mem_size, vm->ncpus);
	rtc_init(&p->rtc, realtime_ns, rtc_irq, rtc_changed, vm);
	pc_testdev_init(&p->testdev, testdev_irq, testdev_flush, vm);
	if (add_ranges(vm, p) < 0) {
		fprintf(stderr, "minivmm: error: registering the platform "
			"devices\n");
		return -1;
	}
	if (start_timer(p) < 0) {
		perror("minivmm: error: RTC timer thread");
		return -1;
	}
	p->timer_started = true;
	return 0;
}

void platform_destroy(struct vm *vm)
{
	struct platform *p = vm->platform;

	if (!p)
		return;
	if (p->timer_started) {
		pthread_mutex_lock(&p->lock);
		p->quit = true;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->timer, NULL);
	}
	rtc_destroy(&p->rtc);
	fw_cfg_destroy(&p->fw_cfg);
	pc_testdev_destroy(&p->testdev);
	pthread_cond_destroy(&p->cond);
	pthread_cond_destroy(&p->idle);
	pthread_mutex_destroy(&p->lock);
	free(p);
	vm->platform = NULL;
}
