// SPDX-License-Identifier: MIT
/* virtio-fs on a vhost-user back end; see fs.h. */
#include <string.h>

#include "devices/virtio/fs.h"
#include "firmware/lib/le.h"

#define PCI_CLASS_STORAGE_OTHER	0x018000
#define CFG_NUM_QUEUES		VIRTIO_FS_TAG_MAX	/* le32 */
#define CFG_SIZE		(VIRTIO_FS_TAG_MAX + 4)
#define REQUEST_QUEUES		1

struct vhu_dev *virtio_fs_create(struct pci_bus *bus, uint32_t bdf,
				 const char *tag, struct vhu_dev_conf *conf,
				 const struct virtio_host *host,
				 const char *name, char *err, size_t errlen)
{
	size_t n = strlen(tag);

	if (!n || n > VIRTIO_FS_TAG_MAX) {
		*err = 0;
		strncat(err, "tag must be 1..36 bytes", errlen - 1);
		return NULL;
	}
	conf->type = VIRTIO_ID_FS;
	conf->class_code = PCI_CLASS_STORAGE_OTHER;
	conf->nqueues = 1 + REQUEST_QUEUES;	/* hiprio, requests */
	conf->queue_max = VIRTIO_FS_QUEUE_SIZE;
	memset(conf->config, 0, sizeof(conf->config));
	memcpy(conf->config, tag, n);
	le32_put(conf->config + CFG_NUM_QUEUES, REQUEST_QUEUES);
	conf->cfg_size = CFG_SIZE;
	return vhu_dev_create(bus, bdf, conf, host, name, err, errlen);
}
