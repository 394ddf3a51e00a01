/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * store.c - pins.h and ledger.h's functions, through the operations of
 * the store that the handle was opened on (store-int.h).
 */
#include "config.h"

#include <string.h>

#include "store-int.h"

int
pins_first_use(struct pins *p, const char *identity, const char *key,
    time_t now, enum pin_seen *seen, struct pin *pinned, struct pa_err *err)
{
	return p->ops->first_use(p, identity, key, now, seen, pinned, err);
}

int
pins_get(struct pins *p, const char *identity, struct pin *out,
    struct pa_err *err)
{
	return p->ops->get(p, identity, out, err);
}

int
pins_forget(struct pins *p, const char *identity, struct pa_err *err)
{
	return p->ops->forget(p, identity, err);
}

int
pins_each(struct pins *p, int (*fn)(void *, const struct pin *), void *arg,
    struct pa_err *err)
{
	return p->ops->each(p, fn, arg, err);
}

void
pins_close(struct pins *p)
{
	if (p != NULL)
		p->ops->close(p);
}

int
ledger_record(struct ledger *l, const struct arrival *a, struct pa_err *err)
{
	return l->ops->record(l, a, err);
}

int
ledger_sync(struct ledger *l, struct pa_err *err)
{
	return l->ops->sync(l, err);
}

size_t
ledger_pending(struct ledger *l)
{
	return l->ops->pending(l);
}

int
ledger_by_message_id_bytes(struct ledger *l, const char *message_id,
    size_t len, int (*fn)(void *, const struct arrival *), void *arg,
    struct pa_err *err)
{
	return l->ops->by_message_id(l, message_id, len, fn, arg, err);
}

int
ledger_by_message_id(struct ledger *l, const char *message_id,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	return l->ops->by_message_id(l, message_id, strlen(message_id), fn,
	    arg, err);
}

int
ledger_by_patch_id(struct ledger *l, const char *patch_id,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	return l->ops->by_patch_id(l, patch_id, fn, arg, err);
}

int
ledger_each(struct ledger *l, time_t since, time_t until,
    int (*fn)(void *, const struct arrival *), void *arg, struct pa_err *err)
{
	return l->ops->each(l, since, until, fn, arg, err);
}

int
ledger_habit(struct ledger *l, const char *identity, struct habit *out,
    struct pa_err *err)
{
	return l->ops->habit(l, identity, out, err);
}

int
ledger_copies(struct ledger *l, const char *message_id, size_t len,
    struct ledger_copies *out, struct pa_err *err)
{
	return l->ops->copies(l, message_id, len, out, err);
}

void
ledger_watch(struct ledger *l,
    void (*fn)(void *, const struct ledger_copy_event *), void *arg)
{
	l->ops->watch(l, fn, arg);
}

int
ledger_size(struct ledger *l, struct ledger_size *out)
{
	memset(out, 0, sizeof(*out));
	return l->ops->size != NULL ? l->ops->size(l, out) : PA_ENOTFOUND;
}

int
ledger_habit_states(struct ledger *l, const char *after,
    int (*fn)(void *, const char *, const struct habit_state *), void *arg,
    struct pa_err *err)
{
	if (l->ops->habits == NULL) {
		pa_err_set(err, "this store does not list its signing habits");
		return PA_ENOTFOUND;
	}
	return l->ops->habits(l, after, fn, arg, err);
}

int
ledger_reads_local(const struct ledger *l)
{
	return l->ops->local;
}

int
ledger_reads_unlocked(const struct ledger *l)
{
	return l->ops->unlocked != NULL && l->ops->unlocked(l);
}

void
ledger_close(struct ledger *l)
{
	if (l != NULL)
		l->ops->close(l);
}
