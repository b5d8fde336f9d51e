/*
 * usrsctpecho: the usrsctp side of the lossy-path benchmark
 * (perf/bench/lossy.sh), the counterpart of perf/bench/usctpecho. A server
 * that echoes what it reads, and a client that writes a number of bytes in
 * fixed-size messages, reads the echo back and prints the elapsed seconds.
 * SCTP runs over UDP encapsulation (RFC 6951) so that the lossy relay can
 * sit in between. Built by the benchmark script against Debian's
 * libusrsctp-dev; not part of the Go build or CI.
 *
 *   usrsctpecho -s UDPPORT SCTPPORT
 *   usrsctpecho -c UDPPORT REMOTEUDPPORT SCTPPORT BYTES SIZE
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

static void die(const char *what) {
	perror(what);
	exit(1);
}

static struct sockaddr_in loopback(int port) {
	struct sockaddr_in sin;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

static int sendall(struct socket *s, const char *p, size_t n) {
	struct sctp_sndinfo info;
	memset(&info, 0, sizeof info);
	while (n > 0) {
		ssize_t w = usrsctp_sendv(s, p, n, NULL, 0, &info, sizeof info, SCTP_SENDV_SNDINFO, 0);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void *echo(void *arg) {
	struct socket *s = arg;
	static __thread char buf[65536];
	for (;;) {
		struct sockaddr_in from;
		socklen_t fromlen = sizeof from;
		struct sctp_rcvinfo rcv;
		socklen_t infolen = sizeof rcv;
		unsigned int infotype = 0;
		int flags = 0;
		ssize_t n = usrsctp_recvv(s, buf, sizeof buf, (struct sockaddr *)&from, &fromlen, &rcv, &infolen, &infotype, &flags);
		if (n <= 0)
			break;
		if (flags & MSG_NOTIFICATION)
			continue;
		if (sendall(s, buf, (size_t)n) < 0)
			break;
	}
	usrsctp_close(s);
	return NULL;
}

static void serve(int sctpport) {
	struct socket *l = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (l == NULL)
		die("usrsctp_socket");
	struct sockaddr_in sin = loopback(sctpport);
	if (usrsctp_bind(l, (struct sockaddr *)&sin, sizeof sin) < 0)
		die("usrsctp_bind");
	if (usrsctp_listen(l, 8) < 0)
		die("usrsctp_listen");
	for (;;) {
		struct socket *c = usrsctp_accept(l, NULL, NULL);
		if (c == NULL) {
			if (errno == EINTR)
				continue;
			die("usrsctp_accept");
		}
		pthread_t t;
		pthread_create(&t, NULL, echo, c);
		pthread_detach(t);
	}
}

struct job {
	struct socket *s;
	long total;
	int size;
};

static void *writer(void *arg) {
	struct job *j = arg;
	char *msg = calloc(1, (size_t)j->size);
	for (long sent = 0; sent < j->total; sent += j->size) {
		long n = j->total - sent < j->size ? j->total - sent : j->size;
		if (sendall(j->s, msg, (size_t)n) < 0)
			die("usrsctp_sendv");
	}
	free(msg);
	return NULL;
}

static void client(int remoteudp, int sctpport, long total, int size) {
	struct socket *s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (s == NULL)
		die("usrsctp_socket");
	struct sctp_udpencaps enc;
	memset(&enc, 0, sizeof enc);
	enc.sue_address.ss_family = AF_INET;
	enc.sue_port = htons(remoteudp);
	if (usrsctp_setsockopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof enc) < 0)
		die("SCTP_REMOTE_UDP_ENCAPS_PORT");
	struct sockaddr_in sin = loopback(sctpport);
	if (usrsctp_connect(s, (struct sockaddr *)&sin, sizeof sin) < 0)
		die("usrsctp_connect");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct job j = {s, total, size};
	pthread_t w;
	pthread_create(&w, NULL, writer, &j);
	static char buf[65536];
	long got = 0;
	while (got < total) {
		struct sockaddr_in from;
		socklen_t fromlen = sizeof from;
		struct sctp_rcvinfo rcv;
		socklen_t infolen = sizeof rcv;
		unsigned int infotype = 0;
		int flags = 0;
		ssize_t n = usrsctp_recvv(s, buf, sizeof buf, (struct sockaddr *)&from, &fromlen, &rcv, &infolen, &infotype, &flags);
		if (n <= 0) {
			fprintf(stderr, "read after %ld bytes: %s\n", got, strerror(errno));
			exit(1);
		}
		if (!(flags & MSG_NOTIFICATION))
			got += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(w, NULL);
	printf("%.3f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	fflush(stdout);
	usrsctp_close(s);
	_exit(0);
}

int main(int argc, char **argv) {
	if (argc == 4 && strcmp(argv[1], "-s") == 0) {
		usrsctp_init((uint16_t)atoi(argv[2]), NULL, NULL);
		serve(atoi(argv[3]));
	} else if (argc == 7 && strcmp(argv[1], "-c") == 0) {
		usrsctp_init((uint16_t)atoi(argv[2]), NULL, NULL);
		client(atoi(argv[3]), atoi(argv[4]), atol(argv[5]), atoi(argv[6]));
	} else {
		fprintf(stderr, "usage: usrsctpecho -s UDPPORT SCTPPORT | -c UDPPORT REMOTEUDPPORT SCTPPORT BYTES SIZE\n");
		return 2;
	}
	return 0;
}
