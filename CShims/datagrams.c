#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>
#include "CShims.h"

enum { CSHIM_BATCH_MAX = 64 };

int cshim_recvmmsg(int fd, void *slots, size_t slot_size, int count, size_t *lengths, void *addresses, int64_t *stamps) {
    if (count <= 0) return 0;
    if (count > CSHIM_BATCH_MAX) count = CSHIM_BATCH_MAX;
    struct mmsghdr messages[CSHIM_BATCH_MAX];
    struct iovec vectors[CSHIM_BATCH_MAX];
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } controls[CSHIM_BATCH_MAX];
    struct sockaddr_in6 *from = addresses;
    memset(messages, 0, sizeof(struct mmsghdr) * (size_t)count);
    for (int i = 0; i < count; i++) {
        vectors[i].iov_base = (char *)slots + (size_t)i * slot_size;
        vectors[i].iov_len = slot_size;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
        messages[i].msg_hdr.msg_name = &from[i];
        messages[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_in6);
        if (stamps) {
            messages[i].msg_hdr.msg_control = controls[i].bytes;
            messages[i].msg_hdr.msg_controllen = sizeof(controls[i].bytes);
        }
    }
    int received;
    do {
        received = recvmmsg(fd, messages, (unsigned int)count, MSG_DONTWAIT | MSG_TRUNC, NULL);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    for (int i = 0; i < received; i++) {
        lengths[i] = messages[i].msg_len;
        if (!stamps) continue;
        stamps[i] = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&messages[i].msg_hdr); c; c = CMSG_NXTHDR(&messages[i].msg_hdr, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
                struct timespec stamp;
                memcpy(&stamp, CMSG_DATA(c), sizeof(stamp));
                stamps[i] = (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
            }
        }
    }
    return received;
}

int cshim_enable_receive_timestamps(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
}

int64_t cshim_realtime_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}
