// SPDX-License-Identifier: MIT
/* Config pages in a memfd and the ECAM window onto them (pci_ecam.h). */
#include "vmm/machine/pci_ecam.h"
#include "devices/pci/bus.h"
#include "vmm/layout.h"
#include "vmm/memory.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE		4096u
#define ONES_PAGES	256u		/* all-ones: one whole bus */
#define MAX_PAGES	(ONES_PAGES + 64)	/* + functions, with room */

struct pci_ecam {
	int memfd;
	unsigned int npages;		/* pages 0..255: all-ones */
	uint8_t *pages[MAX_PAGES];	/* config pages, index = memfd page */
	struct pci_bus *bus;		/* once mapped */
	unsigned int nbuses;
	uint8_t *map;			/* the read-only window, or NULL */
	uint64_t size;
};

static const uint8_t ones_page[PAGE] = { [0 ... PAGE - 1] = 0xff };

/* The all-ones pages stay holes until a read-only window needs them
 * (trap and off never map them). */
struct pci_ecam *pci_ecam_create(void)
{
	struct pci_ecam *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->memfd = memfd_create("minivmm-pci-config", MFD_CLOEXEC);
	if (e->memfd < 0 ||
	    ftruncate(e->memfd, (off_t)ONES_PAGES * PAGE) < 0) {
		pci_ecam_destroy(e);
		return NULL;
	}
	e->npages = ONES_PAGES;
	return e;
}

/* Written, not memset through a mapping: one system call instead of a
 * page fault per page. */
static int fill_ones(struct pci_ecam *e)
{
	struct iovec iov[ONES_PAGES];
	size_t done = 0, total = (size_t)ONES_PAGES * PAGE;

	for (unsigned int i = 0; i < ONES_PAGES; i++)
		iov[i] = (struct iovec){ (void *)ones_page, PAGE };
	while (done < total) {
		unsigned int first = done / PAGE;
		ssize_t n;

		/* After a short write, resume mid-page. */
		iov[first].iov_base = (void *)(ones_page + done % PAGE);
		iov[first].iov_len = PAGE - done % PAGE;
		n = pwritev(e->memfd, iov + first, ONES_PAGES - first,
			    (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n ? errno : EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* Fresh memfd pages are zero. */
void *pci_ecam_alloc_page(void *ctx)
{
	struct pci_ecam *e = ctx;
	void *page;

	if (e->npages == MAX_PAGES ||
	    ftruncate(e->memfd, (off_t)(e->npages + 1) * PAGE) < 0)
		return NULL;
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, e->memfd,
		    (off_t)e->npages * PAGE);
	if (page == MAP_FAILED)
		return NULL;
	e->pages[e->npages++] = page;
	return page;
}

/* The memfd page of a function's config page; -1 for absent functions. */
static long page_index(const struct pci_ecam *e, const uint8_t *page)
{
	for (unsigned int i = ONES_PAGES; page && i < e->npages; i++)
		if (e->pages[i] == page)
			return (long)i;
	return -1;
}

static int map_pages(struct pci_ecam *e, uint8_t *at, unsigned int n,
		     long first)
{
	return mmap(at, (size_t)n * PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
		    e->memfd, (off_t)first * PAGE) == MAP_FAILED ? -1 : 0;
}

/* Each run of absent functions maps the same-length prefix of the
 * all-ones pages in one call, so 256 empty buses cost 256 mappings, not
 * 65536 (more than the default VMA limit). */
static int map_bus(struct pci_ecam *e, uint8_t *bus_win, unsigned int b)
{
	unsigned int devfn = 0;

	while (devfn < PCI_DEVFN_MAX) {
		long idx = page_index(e, pci_bus_ecam_page(e->bus, b, devfn));
		unsigned int run = 1;

		if (idx >= 0) {
			if (map_pages(e, bus_win + devfn * PAGE, 1, idx) < 0)
				return -1;
			devfn++;
			continue;
		}
		while (devfn + run < PCI_DEVFN_MAX &&
		       !pci_bus_ecam_page(e->bus, b, devfn + run))
			run++;
		if (map_pages(e, bus_win + devfn * PAGE, run, 0) < 0)
			return -1;
		devfn += run;
	}
	return 0;
}

static int map_ro(struct pci_ecam *e, struct gmem *mem)
{
	uint8_t *win;

	if (fill_ones(e) < 0)
		return -1;
	win = mmap(NULL, e->size, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (win == MAP_FAILED)
		return -1;
	e->map = win;
	for (unsigned int b = 0; b < e->nbuses; b++)
		if (map_bus(e, win + ((uint64_t)b << 20), b) < 0)
			return -1;
	return gmem_add_region(mem, LAYOUT_ECAM_BASE, e->size, win, true,
			       "ecam-ro") < 0 ? -1 : 0;
}

/* Writes to a read-only slot exit as MMIO, so the trapped ops are
 * registered in both modes; in ro mode they only ever see writes. */
int pci_ecam_map(struct pci_ecam *e, struct pci_bus *bus, unsigned int nbuses,
		 enum ecam_mode mode, struct gmem *mem, struct bus *mmio)
{
	e->bus = bus;
	e->nbuses = nbuses;
	if (mode == ECAM_OFF)
		return 0;
	e->size = pci_bus_ecam_size(bus);
	if (mode == ECAM_RO && map_ro(e, mem) < 0)
		return -1;
	return bus_register(mmio, LAYOUT_ECAM_BASE, e->size, &pci_bus_ecam_ops,
			    bus, mode == ECAM_RO ? "ecam-ro-writes" :
			    "ecam-trap");
}

int pci_ecam_check(const struct pci_ecam *e, FILE *out)
{
	int problems = 0;

	if (!e || !e->map)
		return 0;
	for (unsigned int b = 0; b < e->nbuses; b++) {
		for (unsigned int devfn = 0; devfn < PCI_DEVFN_MAX; devfn++) {
			const uint8_t *pg = pci_bus_ecam_page(e->bus, b, devfn);
			const uint8_t *win = e->map + ((uint64_t)b << 20) +
					     ((uint64_t)devfn << 12);

			if (!memcmp(win, pg ? pg : ones_page, PAGE))
				continue;
			fprintf(out, "pci: ECAM window at %02x:%02x.%x differs "
				"from the model\n", b, devfn >> 3, devfn & 7);
			problems++;
		}
	}
	return problems;
}

void pci_ecam_destroy(struct pci_ecam *e)
{
	if (!e)
		return;
	if (e->map)
		munmap(e->map, e->size);
	for (unsigned int i = ONES_PAGES; i < e->npages; i++)
		munmap(e->pages[i], PAGE);
	if (e->memfd >= 0)
		close(e->memfd);
	free(e);
}
