/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mapguard.c - a SIGBUS in a watched mapping becomes a page of zeros and
 * a flag (see mapguard.h).
 *
 * The handler reads the region table without a lock: a slot is filled
 * (len last) before its region is read, and emptied (len first) only
 * when nobody reads it.  It calls only mmap(), a plain system call, and
 * re-raises anything that is not ours with the handler that was there
 * before (a sanitizer's, or the default one).
 */
#include "config.h"

#include <sys/mman.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mapguard.h"

struct mapguard_region {
	_Atomic uintptr_t	 base;
	_Atomic size_t		 len;		/* 0: the slot is free */
	atomic_int		*_Atomic fault;
};

static struct mapguard_region	 regions[MAPGUARD_MAX];
/* This thread's mapguard_catch(); static TLS, readable in a handler. */
static _Thread_local atomic_int	*_Atomic catching;
static pthread_mutex_t		 regions_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction		 previous;
static size_t			 page_size;

/* zero_page - a page of zeros over the one at addr; 0, or -1 */
static int
zero_page(uintptr_t addr)
{
	uintptr_t page = addr & ~(uintptr_t)(page_size - 1);

	return mmap((void *)page, page_size, PROT_READ, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ? -1 : 0;
}

/* on_sigbus - a page of zeros over a missing page of ours, else as before */
static void
on_sigbus(int sig, siginfo_t *info, void *ctx)
{
	uintptr_t addr = (uintptr_t)info->si_addr, base;
	atomic_int *fault;
	size_t i, len;

	for (i = 0; i < MAPGUARD_MAX; i++) {
		if ((len = atomic_load(&regions[i].len)) == 0)
			continue;
		base = atomic_load(&regions[i].base);
		if (addr < base || addr - base >= len)
			continue;
		if (zero_page(addr) != 0)
			break;
		if ((fault = atomic_load(&regions[i].fault)) != NULL)
			atomic_store(fault, 1);
		return;
	}
	if (i == MAPGUARD_MAX && (fault = atomic_load(&catching)) != NULL &&
	    zero_page(addr) == 0) {
		atomic_store(fault, 1);
		return;
	}
	if (previous.sa_flags & SA_SIGINFO && previous.sa_sigaction != NULL)
		previous.sa_sigaction(sig, info, ctx);
	else if (previous.sa_handler != SIG_IGN &&
	    previous.sa_handler != SIG_DFL && previous.sa_handler != NULL)
		previous.sa_handler(sig);
	else {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

int
mapguard_init(struct pa_err *err)
{
	struct sigaction sa;
	long ps;

	if (page_size != 0)
		return 0;
	if ((ps = sysconf(_SC_PAGESIZE)) <= 0) {
		pa_err_set(err, "cannot learn the page size");
		return PA_ERROR;
	}
	page_size = (size_t)ps;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &previous) != 0) {
		pa_err_set(err, "cannot watch for SIGBUS: %s", strerror(errno));
		return PA_ERROR;
	}
	return 0;
}

int
mapguard_add(struct mapguard_region **out, void *base, size_t len,
    atomic_int *fault)
{
	size_t i;

	pthread_mutex_lock(&regions_lock);
	for (i = 0; i < MAPGUARD_MAX; i++)
		if (atomic_load(&regions[i].len) == 0)
			break;
	if (i == MAPGUARD_MAX) {
		pthread_mutex_unlock(&regions_lock);
		*out = NULL;
		return PA_ERROR;
	}
	atomic_store(&regions[i].fault, fault);
	atomic_store(&regions[i].base, (uintptr_t)base);
	atomic_store(&regions[i].len, len ? len : 1);
	pthread_mutex_unlock(&regions_lock);
	*out = &regions[i];
	return 0;
}

void
mapguard_move(struct mapguard_region *r, void *base, size_t len)
{
	if (r == NULL)
		return;
	atomic_store(&r->len, 0);
	atomic_store(&r->base, (uintptr_t)base);
	atomic_store(&r->len, len ? len : 1);
}

void
mapguard_remove(struct mapguard_region *r)
{
	if (r == NULL)
		return;
	pthread_mutex_lock(&regions_lock);
	atomic_store(&r->len, 0);
	atomic_store(&r->fault, NULL);
	pthread_mutex_unlock(&regions_lock);
}

void
mapguard_catch(atomic_int *fault)
{
	atomic_store(&catching, fault);
}
