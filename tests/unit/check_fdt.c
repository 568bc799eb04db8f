// SPDX-License-Identifier: MIT
/* fdt_build, read back with libfdt: the schema of firmware/lib/abi.h for
 * small and large RAM, CPU counts, payload properties, and buffers that
 * are too small. */
#include "tests/unit/unit.h"
#include "vmm/boot/fdt.h"
#include "vmm/layout.h"

#include <libfdt.h>

static struct vmm_config cfg;
static struct gmem mem;
static struct payload pl;
static uint8_t *fdt;

static void setup(void)
{
	cli_defaults(&cfg);
	memset(&pl, 0, sizeof(pl));
	fdt = malloc(ABI_FDT_MAX);
	ck_assert_ptr_nonnull(fdt);
	ck_assert_int_eq(gmem_init(&mem, -1, 256 * MiB), 0);
}

static void teardown(void)
{
	gmem_destroy(&mem);
	free(fdt);
}

/* Builds into the buffer and checks it is a valid tree within it. */
static void build(void)
{
	int err = fdt_build(fdt, ABI_FDT_MAX, &cfg, &mem, &pl);

	ck_assert_msg(err == 0, "fdt_build: %s", fdt_strerror(err));
	ck_assert_int_eq(fdt_check_header(fdt), 0);
	ck_assert_uint_le(fdt_totalsize(fdt), ABI_FDT_MAX);
}

static int node(const char *path)
{
	int off = fdt_path_offset(fdt, path);

	ck_assert_msg(off >= 0, "no node %s: %s", path, fdt_strerror(off));
	return off;
}

static const char *prop_str(const char *path, const char *name)
{
	int len;
	const char *s = fdt_getprop(fdt, node(path), name, &len);

	ck_assert_msg(s, "no property %s in %s", name, path);
	ck_assert_msg(len >= 1 && s[len - 1] == '\0', "%s is not a string",
		      name);
	return s;
}

static bool has_prop(const char *path, const char *name)
{
	return fdt_getprop(fdt, node(path), name, NULL) != NULL;
}

/* Reads a property of n big-endian u64 cells (length must match). */
static void prop_u64s(const char *path, const char *name, uint64_t *v, int n)
{
	int len;
	const uint8_t *p = fdt_getprop(fdt, node(path), name, &len);

	ck_assert_msg(p, "no property %s in %s", name, path);
	ck_assert_int_eq(len, n * 8);
	for (int i = 0; i < n; i++) {
		fdt64_t be;

		memcpy(&be, p + i * 8, 8);
		v[i] = fdt64_to_cpu(be);
	}
}

static uint32_t prop_u32(const char *path, const char *name)
{
	int len;
	const fdt32_t *p = fdt_getprop(fdt, node(path), name, &len);

	ck_assert_msg(p, "no property %s in %s", name, path);
	ck_assert_int_eq(len, 4);
	return fdt32_to_cpu(*p);
}

START_TEST(root)
{
	build();
	ck_assert_str_eq(prop_str("/", "compatible"), ABI_FDT_COMPATIBLE);
	ck_assert_str_eq(prop_str("/", "model"), "minivmm");
	ck_assert_uint_eq(prop_u32("/", "#address-cells"), 2);
	ck_assert_uint_eq(prop_u32("/", "#size-cells"), 2);
	ck_assert_int_eq(fdt_node_check_compatible(fdt, 0, "minivmm,machine"),
			 0);
}
END_TEST

START_TEST(memory_small)
{
	uint64_t reg[2];
	int len;

	build();
	ck_assert_str_eq(prop_str("/memory@0", "device_type"), "memory");
	fdt_getprop(fdt, node("/memory@0"), "reg", &len);
	ck_assert_int_eq(len, 16);	/* one range */
	prop_u64s("/memory@0", "reg", reg, 2);
	ck_assert_uint_eq(reg[0], 0);
	ck_assert_uint_eq(reg[1], 256 * MiB);
}
END_TEST

START_TEST(memory_4g)
{
	uint64_t reg[4];

	gmem_destroy(&mem);
	ck_assert_int_eq(gmem_init(&mem, -1, 4 * GiB), 0);
	build();
	prop_u64s("/memory@0", "reg", reg, 4);
	ck_assert_uint_eq(reg[0], 0);
	ck_assert_uint_eq(reg[1], 3 * GiB);
	ck_assert_uint_eq(reg[2], 4 * GiB);
	ck_assert_uint_eq(reg[3], 1 * GiB);
}
END_TEST

START_TEST(memory_3g_one_range)
{
	uint64_t reg[2];

	gmem_destroy(&mem);
	ck_assert_int_eq(gmem_init(&mem, -1, 3 * GiB), 0);
	build();
	prop_u64s("/memory@0", "reg", reg, 2);
	ck_assert_uint_eq(reg[1], 3 * GiB);
}
END_TEST

static int count_cpus(void)
{
	int off, n = 0;

	fdt_for_each_subnode(off, fdt, node("/cpus")) {
		char path[32];

		snprintf(path, sizeof(path), "/cpus/cpu@%d", n);
		ck_assert_int_eq(off, node(path));
		ck_assert_str_eq(prop_str(path, "device_type"), "cpu");
		ck_assert_uint_eq(prop_u32(path, "reg"), (uint32_t)n);
		n++;
	}
	return n;
}

START_TEST(cpus)
{
	build();
	ck_assert_uint_eq(prop_u32("/cpus", "#address-cells"), 1);
	ck_assert_uint_eq(prop_u32("/cpus", "#size-cells"), 0);
	ck_assert_int_eq(count_cpus(), 1);
	cfg.cpus = 4;
	build();
	ck_assert_int_eq(count_cpus(), 4);
	cfg.cpus = 255;
	build();
	ck_assert_int_eq(count_cpus(), 255);
}
END_TEST

START_TEST(chosen_no_payload)
{
	build();
	ck_assert_str_eq(prop_str("/chosen", "bootargs"), "");
	ck_assert_str_eq(prop_str("/chosen", ABI_PROP_PAYLOAD_KIND), "none");
	ck_assert(prop_str("/chosen", ABI_PROP_VERSION)[0] != '\0');
	ck_assert_str_eq(prop_str("/chosen", ABI_PROP_OPTIONS),
			 "xen-bar-mtrr=wb");
	ck_assert(!has_prop("/chosen", ABI_PROP_PAYLOAD_ENTRY));
	ck_assert(!has_prop("/chosen", ABI_PROP_PAYLOAD_RANGE));
	ck_assert(!has_prop("/chosen", ABI_PROP_INITRD_RANGE));
}
END_TEST

START_TEST(chosen_pvh_payload)
{
	uint64_t v[2];

	cfg.append = "console=ttyS0 root=/dev/ram0";
	cfg.xen_bar_mtrr = XEN_BAR_UC;
	pl = (struct payload){
		.kind = PAYLOAD_PVH, .entry = 0x1000123, .start = 0x1000000,
		.size = 0x234000, .initrd_start = 0xf000000,
		.initrd_size = 0x123456,
	};
	build();
	ck_assert_str_eq(prop_str("/chosen", "bootargs"),
			 "console=ttyS0 root=/dev/ram0");
	ck_assert_str_eq(prop_str("/chosen", ABI_PROP_PAYLOAD_KIND), "pvh");
	prop_u64s("/chosen", ABI_PROP_PAYLOAD_ENTRY, v, 1);
	ck_assert_uint_eq(v[0], 0x1000123);
	prop_u64s("/chosen", ABI_PROP_PAYLOAD_RANGE, v, 2);
	ck_assert_uint_eq(v[0], 0x1000000);
	ck_assert_uint_eq(v[1], 0x234000);
	prop_u64s("/chosen", ABI_PROP_INITRD_RANGE, v, 2);
	ck_assert_uint_eq(v[0], 0xf000000);
	ck_assert_uint_eq(v[1], 0x123456);
	ck_assert_str_eq(prop_str("/chosen", ABI_PROP_OPTIONS),
			 "xen-bar-mtrr=uc");
}
END_TEST

START_TEST(overlong_cmdline)
{
	size_t n = 2 * ABI_FDT_MAX;
	char *line = malloc(n + 1);
	int err;

	memset(line, 'a', n);
	line[n] = '\0';
	cfg.append = line;
	memset(fdt, 0xcc, ABI_FDT_MAX);
	err = fdt_build(fdt, ABI_FDT_MAX, &cfg, &mem, &pl);
	ck_assert_int_eq(err, -FDT_ERR_NOSPACE);
	/* Just under the limit still fits... */
	line[ABI_FDT_MAX - 2048] = '\0';
	build();
	ck_assert_uint_eq(strlen(prop_str("/chosen", "bootargs")),
			  ABI_FDT_MAX - 2048);
	free(line);
}
END_TEST

START_TEST(small_buffers)
{
	/* Exactly-sized heap buffers so ASan sees any write past the end. */
	for (size_t size = 0; size <= 512; size += 8) {
		uint8_t *b = malloc(size ? size : 1);

		ck_assert_int_lt(fdt_build(b, size, &cfg, &mem, &pl), 0);
		free(b);
	}
}
END_TEST

static Suite *fdt_suite(void)
{
	Suite *s = suite_create("fdt");
	TCase *tc = tcase_create("build");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, root);
	tcase_add_test(tc, memory_small);
	tcase_add_test(tc, memory_4g);
	tcase_add_test(tc, memory_3g_one_range);
	tcase_add_test(tc, cpus);
	tcase_add_test(tc, chosen_no_payload);
	tcase_add_test(tc, chosen_pvh_payload);
	tcase_add_test(tc, overlong_cmdline);
	tcase_add_test(tc, small_buffers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(fdt_suite());
}
