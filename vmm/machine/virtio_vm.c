// SPDX-License-Identifier: MIT
/* Virtio devices in the VM and their KVM plumbing; see virtio_vm.h. */
#include "vmm/machine/virtio_vm.h"
#include "devices/virtio/blk.h"
#include "devices/virtio/console.h"
#include "devices/virtio/fs.h"
#include "devices/virtio/net.h"
#include "devices/virtio/rng.h"
#include "devices/virtio/state.h"
#include "vmm/machine/disk.h"
#include "vmm/machine/gsi.h"
#include "vmm/machine/virtiofsd.h"
#include "vmm/run/exit_status.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAX_DEVS	(CLI_MAX_DISKS + 2 + NET_OPT_MAX + FS_OPT_MAX)

struct vdev {
	struct virtio_vm *vv;
	struct virtio_pci *vp;
	struct virtio_console *con;	/* kind "console" */
	struct virtio_net *net;		/* kind "net" */
	const char *kind;		/* "blk", "rng", "console", "net" */
	const char *path;		/* disk image, or NULL */
	int fd;				/* the image (the device owns it), or
					 * -1 */
	bool ro;
	char name[24];
	unsigned int slot, gsi_base, nvec;
};

struct virtio_vm {
	struct vm *vm;
	struct disk disks[CLI_MAX_DISKS];
	unsigned int ndisks;
	struct net_tap taps[NET_OPT_MAX];	/* opened early; then the
						 * devices' */
	unsigned int ntaps;
	struct virtiofsd daemons[FS_OPT_MAX];	/* --share's */
	struct vdev devs[MAX_DEVS];
	unsigned int ndevs;
	bool any_len;			/* ioeventfd of any access width */
	uint64_t notify_bind_failures;
};

unsigned int virtio_vm_first_slot(const struct vmm_config *cfg)
{
	return VIRTIO_VM_FIRST_SLOT + (cfg->pci_testdev ? 1 : 0);
}

/* --- KVM plumbing --------------------------------------------------- */

/* From the device: vector vec now means the message (addr, data).
 * Called from vCPU threads and device threads alike. */
static void msix_route(void *ctx, unsigned int vec, uint64_t addr,
		       uint32_t data)
{
	struct vdev *d = ctx;

	gsi_route_msi(&d->vv->vm->gsi, d->gsi_base + vec, addr, data);
}

/* Kicks at gpa go to fd in the kernel: one exit, no trip to us. */
static int notify_bind(void *ctx, int fd, uint64_t gpa, bool bind)
{
	struct vdev *d = ctx;
	struct kvm_ioeventfd io = {
		.addr = gpa,
		.len = d->vv->any_len ? 0 : 2,
		.fd = fd,
		.flags = bind ? 0 : KVM_IOEVENTFD_FLAG_DEASSIGN,
	};
	int r = ioctl(d->vv->vm->kvm.vm_fd, KVM_IOEVENTFD, &io);

	if (r < 0 && bind)
		d->vv->notify_bind_failures++;
	return r;
}

static int bind_vectors(struct vdev *d)
{
	for (unsigned int v = 0; v < d->nvec; v++)
		if (gsi_bind_irqfd(&d->vv->vm->gsi,
				   virtio_pci_vector_fd(d->vp, v),
				   d->gsi_base + v) < 0)
			return -1;
	return 0;
}

/* --- devices ----------------------------------------------------------- */

static void *gpa_ptr(void *ctx, uint64_t gpa, uint64_t len)
{
	return gmem_ptr(ctx, gpa, len);
}

static struct virtio_host host_for(struct vdev *d)
{
	struct vm *vm = d->vv->vm;

	return (struct virtio_host){
		.mem = { gpa_ptr, &vm->mem },
		.notify_bind = notify_bind,
		.msix_route = msix_route,
		.intx = gsi_line(&vm->gsi, gsi_pci_intx(d->slot, 0)),
		.ctx = d,
	};
}

static struct vdev *new_dev(struct virtio_vm *vv, const char *kind)
{
	struct vdev *d = &vv->devs[vv->ndevs];
	unsigned int nth = 0;

	for (unsigned int i = 0; i < vv->ndevs; i++)
		nth += !strcmp(vv->devs[i].kind, kind);
	*d = (struct vdev){ .vv = vv, .kind = kind, .fd = -1,
			    .slot = virtio_vm_first_slot(vv->vm->cfg) +
				    vv->ndevs };
	snprintf(d->name, sizeof(d->name), "virtio-%s%u", kind, nth);
	return d;
}

/* The device exists: give it GSIs and irqfds, start its thread. */
static int plug(struct virtio_vm *vv, struct vdev *d, struct virtio_pci *vp)
{
	int base;

	d->vp = vp;
	d->nvec = virtio_pci_nvec(vp);
	vv->ndevs++;
	base = gsi_alloc_msi(&vv->vm->gsi, d->nvec);
	if (base < 0)
		return -1;
	d->gsi_base = (unsigned int)base;
	if (bind_vectors(d) < 0 || virtio_pci_start(vp) < 0)
		return -1;
	return 0;
}

static int add_disk(struct virtio_vm *vv, struct pci_bus *bus, unsigned int i)
{
	const struct disk_opt *opt = &vv->vm->cfg->disks[i];
	struct vdev *d = new_dev(vv, "blk");
	struct virtio_blk_conf conf = {
		.fd = vv->disks[i].fd, .ro = opt->ro, .size = vv->disks[i].size,
		.serial = opt->has_serial ? opt->serial : NULL,
		.unsafe = opt->cache == DISK_CACHE_UNSAFE,
		.direct_align = vv->disks[i].direct_align,
	};
	struct virtio_host h = host_for(d);
	struct virtio_blk *b;

	d->path = opt->path;
	d->ro = opt->ro;
	b = virtio_blk_create(bus, PCI_BDF(0, d->slot, 0), &conf, &h, d->name);
	if (!b)
		return -1;
	d->fd = vv->disks[i].fd;
	vv->disks[i].fd = -1;		/* the device owns it now */
	return plug(vv, d, virtio_blk_pci(b));
}

static int add_rng(struct virtio_vm *vv, struct pci_bus *bus)
{
	struct vdev *d = new_dev(vv, "rng");
	struct virtio_host h = host_for(d);
	struct virtio_rng *r;

	r = virtio_rng_create(bus, PCI_BDF(0, d->slot, 0), &h, d->name);
	return r ? plug(vv, d, virtio_rng_pci(r)) : -1;
}

/* The console device's host end: the shared console (output in its own
 * line buffer; stdin with --console-device virtio) or its own
 * (--virtio-console). */
static int add_console(struct virtio_vm *vv, struct pci_bus *bus)
{
	struct vdev *d = new_dev(vv, "console");
	struct virtio_host h = host_for(d);
	struct console *con = &vv->vm->console;

	d->con = virtio_console_create(bus, PCI_BDF(0, d->slot, 0),
				       (struct vconsole_sink){
					       console_write_virtio, con },
				       &h, d->name);
	if (!d->con)
		return -1;
	console_set_input(con, CONSOLE_SRC_VIRTIO, (struct chardev_target){
		virtio_console_rx_space, virtio_console_receive, d->con });
	return plug(vv, d, virtio_console_pci(d->con));
}

static int add_net(struct virtio_vm *vv, struct pci_bus *bus, unsigned int i)
{
	const struct net_opt *opt = &vv->vm->cfg->nets[i];
	struct vdev *d = new_dev(vv, "net");
	struct virtio_host h = host_for(d);
	struct virtio_net_conf conf = { .tap = vv->taps[i],
					.offloads = !opt->no_offload };

	if (opt->has_mac)
		memcpy(conf.mac, opt->mac, 6);
	else
		net_opt_default_mac(i, conf.mac);
	vv->taps[i].fd = -1;		/* the device owns it now */
	d->net = virtio_net_create(bus, PCI_BDF(0, d->slot, 0), &conf, &h,
				   d->name);
	if (!d->net)
		return -1;
	d->path = virtio_net_ifname(d->net);
	return plug(vv, d, virtio_net_pci(d->net));
}

/* The vhost-user back end left or failed: nothing serves the guest's
 * file system any more, so the run ends rather than hang the guest. */
static void fs_gone(void *ctx, const char *why)
{
	struct vdev *d = ctx;

	vm_stop(d->vv->vm, EXIT_VMM_ERROR, "error: %s (%s): vhost-user back "
		"end failed: %s", d->name, d->path, why);
}

static int add_fs(struct virtio_vm *vv, struct pci_bus *bus, unsigned int i)
{
	const struct fs_opt *o = &vv->vm->cfg->fss[i];
	struct gmem *mem = &vv->vm->mem;
	struct vdev *d = new_dev(vv, "fs");
	struct virtio_host h = host_for(d);
	struct vhu_dev_conf conf = {
		.socket = o->share ? vv->daemons[i].sock : o->path,
		.gone = fs_gone, .ctx = d,
	};
	struct vhu_dev *fs;
	char err[256];

	d->path = o->path;
	d->ro = o->ro;
	for (int r = 0; r < mem->n && conf.nregions < VHU_MAX_REGIONS; r++) {
		const struct gmem_region *g = &mem->regions[r];

		if (!g->is_ram)
			continue;
		conf.regions[conf.nregions] = (struct vhu_region){
			g->gpa, g->size, (uint64_t)(uintptr_t)g->host,
			g->fd_offset };
		conf.region_fds[conf.nregions++] = mem->ram_fd;
	}
	fs = virtio_fs_create(bus, PCI_BDF(0, d->slot, 0), o->tag, &conf, &h,
			      d->name, err, sizeof(err));
	if (!fs) {
		fprintf(stderr, "minivmm: error: %s %s: %s\n",
			o->share ? "--share" : "--fs", o->path, err);
		return -1;
	}
	return plug(vv, d, vhu_dev_pci(fs));
}

/* --- stats -------------------------------------------------------------- */

#define NET(d, f)	((unsigned long long)atomic_load( \
				&virtio_net_counters((d)->net)->f))

static void print_net(FILE *out, struct vdev *d)
{
	const char *why = virtio_net_last_drop(d->net);

	fprintf(out, "%s (00:%02x.0 tap %s): rx %llu packets %llu B, tx %llu "
		"packets %llu B, drops rx %llu tx %llu%s%s%s, rx waits %llu, "
		"notifications %llu (%llu through user space), interrupts "
		"%llu, resets %llu, needs-reset %llu\n", d->name, d->slot,
		d->path, NET(d, rx_packets), NET(d, rx_bytes),
		NET(d, tx_packets), NET(d, tx_bytes), NET(d, rx_drops),
		NET(d, tx_drops), why ? " (last: " : "", why ? why : "",
		why ? ")" : "", NET(d, rx_waits),
		(unsigned long long)atomic_load(&d->vp->stats.notifies),
		(unsigned long long)atomic_load(&d->vp->stats.notify_exits),
		(unsigned long long)atomic_load(&d->vp->stats.interrupts),
		(unsigned long long)atomic_load(&d->vp->stats.resets),
		(unsigned long long)atomic_load(&d->vp->stats.needs_reset));
}

#define LOAD(d, f)	((unsigned long long)atomic_load(&(d)->vp->stats.f))

static void print_stats(void *ctx, FILE *out)
{
	struct virtio_vm *vv = ctx;

	for (unsigned int i = 0; i < vv->ndevs; i++) {
		struct vdev *d = &vv->devs[i];

		if (d->net) {
			print_net(out, d);
			continue;
		}
		fprintf(out, "%s (00:%02x.0%s%s%s): requests %llu, read %llu B,"
			" written %llu B, errors %llu, notifications %llu (%llu"
			" through user space), interrupts %llu, resets %llu, "
			"needs-reset %llu\n", d->name, d->slot,
			d->path ? " " : "", d->path ? d->path : "",
			d->ro ? ",ro" : "", LOAD(d, requests),
			LOAD(d, bytes_read), LOAD(d, bytes_written),
			LOAD(d, errors), LOAD(d, notifies),
			LOAD(d, notify_exits), LOAD(d, interrupts),
			LOAD(d, resets), LOAD(d, needs_reset));
	}
	fprintf(out, "virtio: %llu interrupt route updates (%llu refused), "
		"%llu notify bindings refused\n",
		(unsigned long long)vv->vm->gsi.route_updates,
		(unsigned long long)vv->vm->gsi.route_failures,
		(unsigned long long)vv->notify_bind_failures);
}

static void json_dev(cJSON *a, struct vdev *d)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", d->name);
	cJSON_AddStringToObject(o, "type", d->kind);
	cJSON_AddNumberToObject(o, "slot", d->slot);
	if (d->path)
		cJSON_AddStringToObject(o, "path", d->path);
	cJSON_AddBoolToObject(o, "ro", d->ro);
	cJSON_AddNumberToObject(o, "requests", (double)LOAD(d, requests));
	cJSON_AddNumberToObject(o, "bytes_read", (double)LOAD(d, bytes_read));
	cJSON_AddNumberToObject(o, "bytes_written",
				(double)LOAD(d, bytes_written));
	cJSON_AddNumberToObject(o, "errors", (double)LOAD(d, errors));
	cJSON_AddNumberToObject(o, "notifications", (double)LOAD(d, notifies));
	cJSON_AddNumberToObject(o, "notify_exits",
				(double)LOAD(d, notify_exits));
	cJSON_AddNumberToObject(o, "interrupts", (double)LOAD(d, interrupts));
	cJSON_AddNumberToObject(o, "resets", (double)LOAD(d, resets));
	cJSON_AddNumberToObject(o, "needs_reset", (double)LOAD(d, needs_reset));
	if (d->net) {
		const char *why = virtio_net_last_drop(d->net);

		cJSON_AddNumberToObject(o, "rx_packets", (double)NET(d, rx_packets));
		cJSON_AddNumberToObject(o, "rx_bytes", (double)NET(d, rx_bytes));
		cJSON_AddNumberToObject(o, "rx_drops", (double)NET(d, rx_drops));
		cJSON_AddNumberToObject(o, "tx_packets", (double)NET(d, tx_packets));
		cJSON_AddNumberToObject(o, "tx_bytes", (double)NET(d, tx_bytes));
		cJSON_AddNumberToObject(o, "tx_drops", (double)NET(d, tx_drops));
		cJSON_AddNumberToObject(o, "rx_waits", (double)NET(d, rx_waits));
		cJSON_AddStringToObject(o, "last_drop", why ? why : "");
	}
	cJSON_AddItemToArray(a, o);
}

static void json_stats(void *ctx, cJSON *root)
{
	struct virtio_vm *vv = ctx;
	cJSON *a = cJSON_AddArrayToObject(root, "virtio");

	for (unsigned int i = 0; i < vv->ndevs; i++)
		json_dev(a, &vv->devs[i]);
}

/* --- snapshots ----------------------------------------------------------- */

static int snap_save(void *ctx, struct snap_buf *out)
{
	struct vdev *d = ctx;
	struct virtio_pci_snap st;

	virtio_pci_get_state(d->vp, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int snap_load(void *ctx, const uint8_t *data, size_t len, char *err,
		     size_t errlen)
{
	struct vdev *d = ctx;
	struct virtio_pci_snap st;
	const char *why = "malformed section";

	if (len == sizeof(st)) {
		memcpy(&st, data, sizeof(st));
		if (virtio_pci_set_state(d->vp, &st, &why) == 0)
			return 0;
	}
	snprintf(err, errlen, "%s%s%s: %s", d->name, d->path ? " " : "",
		 d->path ? d->path : "", why);
	return -1;
}

/* Nothing in flight, and what the guest wrote is on the disk when the
 * snapshot file is. */
static int snap_quiesce(void *ctx)
{
	struct vdev *d = ctx;

	virtio_pci_quiesce(d->vp);
	if (d->fd >= 0 && !d->ro && fdatasync(d->fd) < 0) {
		fprintf(stderr, "minivmm: error: %s: flushing %s: %s\n",
			d->name, d->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* virtio-console's input not yet in the guest (SNAP_SEC_VCONSOLE). */
static int con_save(void *ctx, struct snap_buf *out)
{
	struct vdev *d = ctx;
	struct vconsole_state st;

	virtio_console_get_state(d->con, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int con_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	struct vdev *d = ctx;
	struct vconsole_state st;

	if (len == sizeof(st)) {
		memcpy(&st, data, sizeof(st));
		if (virtio_console_set_state(d->con, &st) == 0)
			return 0;
	}
	snprintf(err, errlen, "%s: malformed input buffer", d->name);
	return -1;
}

static void snap_resume(void *ctx)
{
	struct vdev *d = ctx;

	virtio_pci_resume(d->vp);
}

int virtio_vm_snap_register(struct vm *vm)
{
	struct virtio_vm *vv = vm->virtio;

	for (unsigned int i = 0; vv && i < vv->ndevs; i++) {
		struct vdev *d = &vv->devs[i];
		struct snap_state_ops o = { SNAP_SEC_VIRTIO,
			PCI_BDF(0, d->slot, 0), SNAP_PHASE_DEVICES, snap_save,
			snap_load, d };

		struct snap_state_ops c = { SNAP_SEC_VCONSOLE,
			PCI_BDF(0, d->slot, 0), SNAP_PHASE_DEVICES, con_save,
			con_load, d };

		if (snap_add_state(&vm->snap_reg, &o) < 0 ||
		    snap_add_quiesce(&vm->snap_reg, (struct snap_quiesce){
			    snap_quiesce, snap_resume, d }) < 0)
			return -1;
		if (d->con && snap_add_state(&vm->snap_reg, &c) < 0)
			return -1;
	}
	return 0;
}

/* --- set-up ------------------------------------------------------------- */

/* Before the guest starts, so a missing tap or permission is bad input. */
static int open_taps(struct virtio_vm *vv)
{
	const struct vmm_config *cfg = vv->vm->cfg;
	char err[256];

	for (unsigned int i = 0; i < cfg->nnets; i++) {
		const struct net_opt *o = &cfg->nets[i];

		if (net_tap_open(o->has_name ? o->name : NULL, &vv->taps[i],
				 err, sizeof(err)) < 0) {
			fprintf(stderr, "minivmm: error: --net tap%s%s: %s\n",
				o->has_name ? "=" : "",
				o->has_name ? o->name : "", err);
			return -1;
		}
		vv->ntaps++;
	}
	return 0;
}

int virtio_vm_prepare(struct vm *vm)
{
	const struct vmm_config *cfg = vm->cfg;
	struct virtio_vm *vv;

	if (!cfg->ndisks && !cfg->rng && !cfg->console_virtio && !cfg->nnets &&
	    !cfg->nfs)
		return 0;
	vv = calloc(1, sizeof(*vv));
	if (!vv) {
		fprintf(stderr, "minivmm: error: out of memory\n");
		return -1;
	}
	vm->virtio = vv;
	vv->vm = vm;
	for (unsigned int i = 0; i < cfg->ndisks; i++) {
		if (disk_open(&cfg->disks[i], &vv->disks[i]) < 0)
			return -1;
		vv->ndisks++;
	}
	return open_taps(vv) < 0 ? -1 :
	       virtiofsd_start_all(vv->daemons, vm->cfg);
}

static int check_caps(struct vm *vm)
{
	static const struct { int cap; const char *name; } caps[] = {
		{ KVM_CAP_IRQ_ROUTING, "KVM_CAP_IRQ_ROUTING" },
		{ KVM_CAP_IRQFD, "KVM_CAP_IRQFD" },
		{ KVM_CAP_IOEVENTFD, "KVM_CAP_IOEVENTFD" },
	};

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		if (ioctl(vm->kvm.vm_fd, KVM_CHECK_EXTENSION, caps[i].cap) > 0)
			continue;
		fprintf(stderr, "minivmm: error: virtio devices need %s, which "
			"this KVM lacks\n", caps[i].name);
		return -1;
	}
	vm->virtio->any_len = ioctl(vm->kvm.vm_fd, KVM_CHECK_EXTENSION,
				    KVM_CAP_IOEVENTFD_ANY_LENGTH) > 0;
	return 0;
}

int virtio_vm_setup(struct vm *vm, struct pci_bus *bus)
{
	struct virtio_vm *vv = vm->virtio;

	if (!vv)
		return 0;
	if (check_caps(vm) < 0)
		return -1;
	for (unsigned int i = 0; i < vv->ndisks; i++)
		if (add_disk(vv, bus, i) < 0)
			goto fail;
	if (vm->cfg->rng && add_rng(vv, bus) < 0)
		goto fail;
	if (vm->cfg->console_virtio && add_console(vv, bus) < 0)
		goto fail;
	for (unsigned int i = 0; i < vv->ntaps; i++)
		if (add_net(vv, bus, i) < 0)
			goto fail;
	for (unsigned int i = 0; i < vm->cfg->nfs; i++)
		if (add_fs(vv, bus, i) < 0)
			return -1;
	stats_add_reporter(&vm->stats, (struct stats_reporter){
		print_stats, json_stats, vv });
	return 0;
fail:
	fprintf(stderr, "minivmm: error: setting up virtio devices: %s\n",
		errno ? strerror(errno) : "internal error");
	return -1;
}

void virtio_vm_destroy(struct vm *vm)
{
	struct virtio_vm *vv = vm->virtio;

	if (!vv)
		return;
	for (unsigned int i = 0; i < vv->ndisks; i++)
		disk_close(&vv->disks[i]);
	for (unsigned int i = 0; i < vv->ntaps; i++)
		net_tap_close(&vv->taps[i]);
	for (unsigned int i = 0; i < FS_OPT_MAX; i++)
		virtiofsd_stop(&vv->daemons[i]);
	free(vv);
	vm->virtio = NULL;
}
