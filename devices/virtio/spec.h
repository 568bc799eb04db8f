/* SPDX-License-Identifier: MIT */
/*
 * Virtio 1.2 as seen on the wire: register offsets, bit numbers and ring
 * layouts of the modern PCI transport, split virtqueues, virtio-blk,
 * virtio-console, virtio-rng and virtio-net.  Shared by the device models
 * and the guest test drivers (tests/guest/), so it is freestanding: macros
 * only, no functions.
 * Names follow the specification ("Virtual I/O Device Version 1.2").
 */
#ifndef MINIVMM_VIRTIO_SPEC_H
#define MINIVMM_VIRTIO_SPEC_H

/* PCI identity (4.1.2): modern-only devices are 0x1040 + device type. */
#define VIRTIO_PCI_VENDOR		0x1af4
#define VIRTIO_PCI_DEVICE_BASE		0x1040
#define VIRTIO_PCI_SUBSYS_ID		0x1100
#define VIRTIO_PCI_REVISION		1	/* >= 1: non-transitional */

/* Device types (5). */
#define VIRTIO_ID_NET			1
#define VIRTIO_ID_BLOCK			2
#define VIRTIO_ID_CONSOLE		3
#define VIRTIO_ID_RNG			4
#define VIRTIO_ID_FS			26

/* Device status (2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE	1
#define VIRTIO_STATUS_DRIVER		2
#define VIRTIO_STATUS_DRIVER_OK		4
#define VIRTIO_STATUS_FEATURES_OK	8
#define VIRTIO_STATUS_NEEDS_RESET	64
#define VIRTIO_STATUS_FAILED		128

/* Transport feature bits (6). */
#define VIRTIO_F_RING_INDIRECT_DESC	28
#define VIRTIO_F_RING_EVENT_IDX		29
#define VIRTIO_F_VERSION_1		32
#define VIRTIO_F_ACCESS_PLATFORM	33
#define VIRTIO_F_RING_PACKED		34
#define VIRTIO_F_IN_ORDER		35
#define VIRTIO_F_NOTIFICATION_DATA	38
#define VIRTIO_F_RING_RESET		40

/* PCI vendor capability (4.1.4): struct virtio_pci_cap. */
#define VIRTIO_PCI_CAP_COMMON_CFG	1
#define VIRTIO_PCI_CAP_NOTIFY_CFG	2
#define VIRTIO_PCI_CAP_ISR_CFG		3
#define VIRTIO_PCI_CAP_DEVICE_CFG	4
#define VIRTIO_PCI_CAP_PCI_CFG		5
#define VIRTIO_PCI_CAP_VNDR		0	/* u8, PCI_CAP_ID_VNDR */
#define VIRTIO_PCI_CAP_NEXT		1	/* u8 */
#define VIRTIO_PCI_CAP_LEN		2	/* u8 */
#define VIRTIO_PCI_CAP_CFG_TYPE		3	/* u8 */
#define VIRTIO_PCI_CAP_BAR		4	/* u8 */
#define VIRTIO_PCI_CAP_ID		5	/* u8 */
#define VIRTIO_PCI_CAP_OFFSET		8	/* le32 */
#define VIRTIO_PCI_CAP_LENGTH		12	/* le32 */
#define VIRTIO_PCI_CAP_SIZEOF		16
#define VIRTIO_PCI_NOTIFY_MULTIPLIER	16	/* le32, notify cap only */
#define VIRTIO_PCI_NOTIFY_CAP_SIZEOF	20
#define VIRTIO_PCI_CFG_DATA		16	/* u8[4], pci_cfg cap only */
#define VIRTIO_PCI_CFG_CAP_SIZEOF	20

/* Common configuration structure (4.1.4.3). */
#define VIRTIO_PCI_COMMON_DFSELECT	0x00	/* le32 */
#define VIRTIO_PCI_COMMON_DF		0x04	/* le32, ro */
#define VIRTIO_PCI_COMMON_GFSELECT	0x08	/* le32 */
#define VIRTIO_PCI_COMMON_GF		0x0c	/* le32 */
#define VIRTIO_PCI_COMMON_MSIX		0x10	/* le16 */
#define VIRTIO_PCI_COMMON_NUMQ		0x12	/* le16, ro */
#define VIRTIO_PCI_COMMON_STATUS	0x14	/* u8 */
#define VIRTIO_PCI_COMMON_CFGGENERATION	0x15	/* u8, ro */
#define VIRTIO_PCI_COMMON_Q_SELECT	0x16	/* le16 */
#define VIRTIO_PCI_COMMON_Q_SIZE	0x18	/* le16 */
#define VIRTIO_PCI_COMMON_Q_MSIX	0x1a	/* le16 */
#define VIRTIO_PCI_COMMON_Q_ENABLE	0x1c	/* le16 */
#define VIRTIO_PCI_COMMON_Q_NOFF	0x1e	/* le16, ro */
#define VIRTIO_PCI_COMMON_Q_DESCLO	0x20	/* le64 as two le32 */
#define VIRTIO_PCI_COMMON_Q_DESCHI	0x24
#define VIRTIO_PCI_COMMON_Q_AVAILLO	0x28
#define VIRTIO_PCI_COMMON_Q_AVAILHI	0x2c
#define VIRTIO_PCI_COMMON_Q_USEDLO	0x30
#define VIRTIO_PCI_COMMON_Q_USEDHI	0x34
#define VIRTIO_PCI_COMMON_Q_NDATA	0x38	/* le16, ro */
#define VIRTIO_PCI_COMMON_Q_RESET	0x3a	/* le16 */
#define VIRTIO_PCI_COMMON_SIZEOF	0x3c
#define VIRTIO_MSI_NO_VECTOR		0xffff

/* ISR status (4.1.4.5): read clears it. */
#define VIRTIO_ISR_QUEUE		1
#define VIRTIO_ISR_CONFIG		2

/* Split virtqueue (2.7). */
#define VIRTQ_DESC_F_NEXT		1
#define VIRTQ_DESC_F_WRITE		2
#define VIRTQ_DESC_F_INDIRECT		4
#define VIRTQ_AVAIL_F_NO_INTERRUPT	1
#define VIRTQ_USED_F_NO_NOTIFY		1
#define VIRTQ_MAX_SIZE			32768
#define VIRTQ_DESC_SIZE			16	/* le64 addr, le32 len,
						 * le16 flags, le16 next */
#define VIRTQ_USED_ELEM_SIZE		8	/* le32 id, le32 len */
/* Bytes of each part for a queue of n entries, event-index fields
 * included; and their required alignments. */
#define VIRTQ_DESC_BYTES(n)		(16ull * (n))
#define VIRTQ_AVAIL_BYTES(n)		(6ull + 2ull * (n))
#define VIRTQ_USED_BYTES(n)		(6ull + 8ull * (n))
#define VIRTQ_DESC_ALIGN		16
#define VIRTQ_AVAIL_ALIGN		2
#define VIRTQ_USED_ALIGN		4

/* virtio-console (5.3): queue 0 receiveq (port 0 input), 1 transmitq. */
#define VIRTIO_CONSOLE_F_SIZE		0
#define VIRTIO_CONSOLE_F_MULTIPORT	1
#define VIRTIO_CONSOLE_F_EMERG_WRITE	2

#define VIRTIO_CONSOLE_CFG_COLS		0x00	/* le16 */
#define VIRTIO_CONSOLE_CFG_ROWS		0x02	/* le16 */
#define VIRTIO_CONSOLE_CFG_MAX_NR_PORTS	0x04	/* le32 */
#define VIRTIO_CONSOLE_CFG_EMERG_WR	0x08	/* le32, write-only */
#define VIRTIO_CONSOLE_CFG_SIZEOF	0x0c
#define VIRTIO_CONSOLE_RXQ		0
#define VIRTIO_CONSOLE_TXQ		1

/* virtio-blk (5.2). */
#define VIRTIO_BLK_F_SIZE_MAX		1
#define VIRTIO_BLK_F_SEG_MAX		2
#define VIRTIO_BLK_F_GEOMETRY		4
#define VIRTIO_BLK_F_RO			5
#define VIRTIO_BLK_F_BLK_SIZE		6
#define VIRTIO_BLK_F_FLUSH		9
#define VIRTIO_BLK_F_TOPOLOGY		10
#define VIRTIO_BLK_F_CONFIG_WCE		11
#define VIRTIO_BLK_F_MQ			12
#define VIRTIO_BLK_F_DISCARD		13
#define VIRTIO_BLK_F_WRITE_ZEROES	14

#define VIRTIO_BLK_CFG_CAPACITY		0x00	/* le64, 512-byte sectors */
#define VIRTIO_BLK_CFG_SIZE_MAX		0x08	/* le32 */
#define VIRTIO_BLK_CFG_SEG_MAX		0x0c	/* le32 */
#define VIRTIO_BLK_CFG_GEOMETRY		0x10	/* le16 cyl, u8 heads, u8 sec */
#define VIRTIO_BLK_CFG_BLK_SIZE		0x14	/* le32 */
#define VIRTIO_BLK_CFG_TOPOLOGY		0x18	/* 8 bytes */
#define VIRTIO_BLK_CFG_WRITEBACK	0x20	/* u8 */
#define VIRTIO_BLK_CFG_NUM_QUEUES	0x22	/* le16 */
#define VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS 0x24	/* le32 */
#define VIRTIO_BLK_CFG_MAX_DISCARD_SEG	0x28	/* le32 */
#define VIRTIO_BLK_CFG_DISCARD_ALIGN	0x2c	/* le32 */
#define VIRTIO_BLK_CFG_MAX_WZ_SECTORS	0x30	/* le32 */
#define VIRTIO_BLK_CFG_MAX_WZ_SEG	0x34	/* le32 */
#define VIRTIO_BLK_CFG_WZ_MAY_UNMAP	0x38	/* u8 */
#define VIRTIO_BLK_CFG_SIZEOF		0x3c

#define VIRTIO_BLK_T_IN			0
#define VIRTIO_BLK_T_OUT		1
#define VIRTIO_BLK_T_FLUSH		4
#define VIRTIO_BLK_T_GET_ID		8
#define VIRTIO_BLK_T_GET_LIFETIME	10
#define VIRTIO_BLK_T_DISCARD		11
#define VIRTIO_BLK_T_WRITE_ZEROES	13
#define VIRTIO_BLK_T_SECURE_ERASE	14

#define VIRTIO_BLK_S_OK			0
#define VIRTIO_BLK_S_IOERR		1
#define VIRTIO_BLK_S_UNSUPP		2

#define VIRTIO_BLK_SECTOR_SIZE		512
#define VIRTIO_BLK_HDR_SIZE		16	/* le32 type, le32 reserved,
						 * le64 sector */
#define VIRTIO_BLK_SEG_SIZE		16	/* discard/write-zeroes:
						 * le64 sector, le32 num,
						 * le32 flags */
#define VIRTIO_BLK_WZ_F_UNMAP		1
#define VIRTIO_BLK_ID_BYTES		20

/* virtio-net (5.1). */
#define VIRTIO_NET_F_CSUM		0
#define VIRTIO_NET_F_GUEST_CSUM		1
#define VIRTIO_NET_F_MTU		3
#define VIRTIO_NET_F_MAC		5
#define VIRTIO_NET_F_GUEST_TSO4		7
#define VIRTIO_NET_F_GUEST_TSO6		8
#define VIRTIO_NET_F_GUEST_ECN		9
#define VIRTIO_NET_F_GUEST_UFO		10
#define VIRTIO_NET_F_HOST_TSO4		11
#define VIRTIO_NET_F_HOST_TSO6		12
#define VIRTIO_NET_F_HOST_ECN		13
#define VIRTIO_NET_F_HOST_UFO		14
#define VIRTIO_NET_F_MRG_RXBUF		15
#define VIRTIO_NET_F_STATUS		16
#define VIRTIO_NET_F_CTRL_VQ		17
#define VIRTIO_NET_F_MQ			22

#define VIRTIO_NET_CFG_MAC		0x00	/* u8[6] */
#define VIRTIO_NET_CFG_STATUS		0x06	/* le16 */
#define VIRTIO_NET_CFG_MAX_PAIRS	0x08	/* le16 */
#define VIRTIO_NET_CFG_SIZEOF		0x0a
#define VIRTIO_NET_S_LINK_UP		1

#define VIRTIO_NET_RXQ			0
#define VIRTIO_NET_TXQ			1

/* struct virtio_net_hdr as VERSION_1 has it (num_buffers always there):
 * u8 flags, u8 gso_type, le16 hdr_len, le16 gso_size, le16 csum_start,
 * le16 csum_offset, le16 num_buffers. */
#define VIRTIO_NET_HDR_SIZE		12
#define VIRTIO_NET_HDR_FLAGS		0
#define VIRTIO_NET_HDR_GSO_TYPE		1
#define VIRTIO_NET_HDR_HDR_LEN		2
#define VIRTIO_NET_HDR_GSO_SIZE		4
#define VIRTIO_NET_HDR_CSUM_START	6
#define VIRTIO_NET_HDR_CSUM_OFFSET	8
#define VIRTIO_NET_HDR_NUM_BUFFERS	10
#define VIRTIO_NET_HDR_F_NEEDS_CSUM	1
#define VIRTIO_NET_HDR_F_DATA_VALID	2
#define VIRTIO_NET_HDR_GSO_NONE		0
#define VIRTIO_NET_HDR_GSO_TCPV4	1
#define VIRTIO_NET_HDR_GSO_UDP		3
#define VIRTIO_NET_HDR_GSO_TCPV6	4
#define VIRTIO_NET_HDR_GSO_ECN		0x80

#endif
