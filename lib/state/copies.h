/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * copies - what both stores do with the copies of one Message-ID
 * (ledger.h): number the next one and set it beside the first kept,
 * choose whether it is kept, and gather what a watcher is told once the
 * batch that wrote them is committed.
 *
 * struct copy_news is the store's: copy_news_init() before the first
 * batch, copy_news_release() after the last.  copy_news_watch() sets the
 * watcher from any thread; the store's writing thread calls
 * copy_news_clear() as a batch begins (it takes the watcher then; a
 * batch that failed tells nothing), copy_news_add() for each copy after
 * the first, and copy_news_tell() once it is committed.  At most
 * COPY_NEWS_MAX copies are told a batch; the others are counted on the
 * last one told.
 */
#ifndef PA_COPIES_H
#define PA_COPIES_H

#include <pthread.h>

#include "ledger.h"

#define COPY_NEWS_MAX	64

struct copy_told {
	struct arrival		 copy, first;
	int			 has_first;
	struct ledger_copies	 copies;
	int			 kept;
};

struct copy_news {
	pthread_mutex_t		 lock;		/* around next_* */
	void			(*next_watch)(void *,
				    const struct ledger_copy_event *);
	void			*next_arg;
	/* the batch's, taken as it begins */
	void			(*watch)(void *,
				    const struct ledger_copy_event *);
	void			*arg;
	struct copy_told	*told;		/* COPY_NEWS_MAX, or NULL */
	size_t			 n;
	unsigned		 untold, untold_differing;
};

/*
 * copies_known - whether mail of the Message-ID hashed in hash can be a
 * copy: not when it has none (each such mail is a first copy, and not
 * found by Message-ID)
 */
int	copies_known(const unsigned char hash[32]);

/*
 * copies_next - rec numbered as the next copy of a Message-ID of which
 * cs arrived (first: its first kept copy, or NULL), set beside first
 * (rec's differs and parts), and counted in cs: whether it is kept
 */
int	copies_next(struct arrival *rec, const struct arrival *first,
	    struct ledger_copies *cs);

void	copy_news_init(struct copy_news *);
void	copy_news_release(struct copy_news *);
void	copy_news_watch(struct copy_news *,
	    void (*fn)(void *, const struct ledger_copy_event *), void *arg);
void	copy_news_clear(struct copy_news *);
/* copy_news_add - rec (a copy after the first) to be told: 0, PA_ENOMEM */
int	copy_news_add(struct copy_news *, const struct arrival *rec,
	    const struct arrival *first, const struct ledger_copies *cs,
	    int kept);
void	copy_news_tell(struct copy_news *);

#endif
