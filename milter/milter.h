/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * milter.h - the parts of patchattest-milter: the glue between libmilter
 * and the library.  Decisions, policy and formats live in lib/; these
 * files hold the daemon's state, threads and callbacks only.
 *
 * Threads: libmilter's listener and workers run the callbacks
 * (callbacks.c); one background worker indexes documents learnt from mail
 * and re-reads the archive, and performs reloads (worker.c); the main
 * thread waits for signals (main.c).
 */
#ifndef PA_MILTER_H
#define PA_MILTER_H

#include <sys/socket.h>
#include <sys/types.h>

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include <libmilter/mfapi.h>

#include "verdict.h"
#include "base.h"
#include "patchattest.h"

/*
 * log.c: syslog and, in the foreground, standard error; mlog_divert()
 * once the milter is where it will run (after it left the terminal):
 * from then on the libraries' stderr lines are debug lines
 */
void	mlog_open(int foreground);
void	mlog_divert(void);
void	mlog_configure(const struct pa_config *);
void	mlog(enum log_level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * state.c: the configuration in force, the index and PatattTOFU's pins.
 *
 * A generation is one loaded configuration, with the patatt keyring of
 * its PatattKeyring folders; callbacks hold a reference from MAIL FROM to
 * the end of the message, so a reload never changes the settings under a
 * message.  The index is shared by every message and replaced only by
 * the worker thread; deciders (each with its own GnuPG context) are
 * pooled per generation.
 */
struct patatt_keyring;
struct generation {
	struct pa_config	 cf;
	struct patatt_keyring	*keys;
	atomic_int		 refs;
};

int			 state_init(struct pa_config *, struct pa_err *);
void			 state_shutdown(void);
struct generation	*state_hold(void);
void			 state_release(struct generation *);
/*
 * state_decide - the decision on a message that arrived at now from
 * where from says, recorded in StateFile's ledger when it is set; one
 * that could not be recorded is d->unrecorded, unrecorded saying why.
 * PA_ENOPATCH: neither a patch nor signed, nothing decided; a cover
 * letter is recorded all the same (decide_arrival_unjudged()), a record
 * not written said in unrecorded.
 */
int			 state_decide(const struct mailmsg *, time_t now,
			     const struct arrival_origin *from,
			     struct decision *d, struct pa_err *unrecorded);
int			 state_reload(const char *path);
void			 state_reopen_index(void);
void			 state_index_made(void);
struct attindex		*state_index(void);
/* state_index_stale - the index was replaced or damaged: reopen it */
int			 state_index_stale(void);
extern atomic_long	 state_in_flight;	/* messages being received */
/*
 * state_gauges - what the metrics say of the index and the ledger now
 * (the index by its data file: the worker may be writing to it, and a
 * write transaction belongs to its thread)
 */
struct state_gauges {
	int		 index_known;	/* its data file could be looked at */
	time_t		 index_changed;
	long long	 index_bytes;
	size_t		 journal_depth;	/* arrival records not yet written */
	int		 ledger_sized;	/* StateFile a file: its size */
	struct ledger_size ledger_size;
	unsigned long long ledger_faults;	/* StateFile's ledger, and */
	unsigned long long pins_faults;	/* PatattTOFUPins' pins, not
					   opened (start-up, reloads) */
	unsigned long long journal_damage;	/* StateDatabase's journal
						   found damaged, times */
	unsigned long long journal_lost;	/* records lost in it */
	unsigned long long journal_aside;	/* its bytes set aside */
};
void			 state_gauges(struct state_gauges *);

/*
 * reload.c: reload_read - the configuration at path into cf, ready to be
 * put in force after in_use: a file with problems is refused (each one
 * logged), and a key only a start carries out keeps in_use's value (said
 * in the log); 0, or the error.  reload_keeps_* - what of a's state
 * serves b as it is: its PatattKeyring folders' keyring, its deciders'
 * GnuPG home and trust model, its open index.
 */
int	reload_read(const char *path, const struct pa_config *in_use,
	    struct pa_config *cf);
int	reload_keeps_keyring(const struct pa_config *a,
	    const struct pa_config *b);
int	reload_keeps_gnupg(const struct pa_config *a,
	    const struct pa_config *b);
int	reload_keeps_index(const struct pa_config *a,
	    const struct pa_config *b);

/*
 * storenotes.c: the state stores' notices (storenotes: the database gone
 * and back, its journal found damaged), logged once and counted;
 * storenotes_journal - the journal's damage counted so far;
 * storenotes_size - StateFile's use against StateMaxSize (lg's, at
 * path), logged once on the way past 80%, once on the way back under 75%
 */
struct statedb_notice;
struct ledger;
extern const struct statedb_notice storenotes;
void	storenotes_journal(unsigned long long *damage,
	    unsigned long long *lost, unsigned long long *set_aside);
void	storenotes_size(struct ledger *lg, const char *path);

/*
 * copylog.c: copylog_copy - the ledger's watcher: a copy logged and
 * counted; copylog_counts - the copies counted, the same as the first
 * and differing
 */
void	copylog_copy(void *, const struct ledger_copy_event *);
void	copylog_counts(unsigned long long *identical,
	    unsigned long long *differing);

/* worker.c: the background thread */
int	worker_start(const char *config_path, struct pa_err *);
void	worker_stop(void);
void	worker_request_reload(void);
/*
 * worker_reopen_index - the index found replaced or damaged: have the
 * worker reopen it, and wait for that a second or two at most
 */
void	worker_reopen_index(void);
void	worker_learn(const char *text, size_t len);

/*
 * setup.c: setup_load - the configuration file with the socket and the
 * PidFile given on the command line (or NULL) in cf, UserID in ra, and
 * every problem that
 * would stop the milter or leave it unable to work in problems ("FILE:LINE:
 * Key value: why" lines); 0 when there is none.  check_only (-n) adds
 * what the milter starts without: a StateDatabase it cannot reach (as
 * UserID reaches it), a passfile libpq ignores.  notes (or NULL) gets
 * lines about what was found good: how the database was reached.
 * setup_socket_path - the file of a local socket spec, or NULL.
 */
int		 setup_load(const char *file, const char *socket_arg,
		    const char *pid_arg, int check_only, struct pa_config *,
		    struct runas *, struct sbuf *problems, struct sbuf *notes);
const char	*setup_socket_path(const char *spec);

/*
 * pidfile.c: pidfile_check - the folder of path may be written only by
 * root and owner (a symbolic link at path is refused when it is opened);
 * pidfile_write - path made or rewritten with our process ID, without
 * following a link, locked while the milter runs; pidfile_remove - at
 * the end, or emptied when its folder does not let us remove it; -1 with
 * err set when it still names us
 */
int	pidfile_check(const char *path, uid_t owner, struct pa_err *);
int	pidfile_write(const char *path, uid_t owner, struct pa_err *);
int	pidfile_remove(struct pa_err *);

/*
 * safedir.c: safedir_check - 0 when root may make files in the folder dir
 * (absolute) and hand them to owner: every folder above it root's and
 * written by others only when sticky, no symbolic link but root's in a
 * folder only root writes, dir itself root's or owner's and written by
 * no one else; *shared = 1 when dir is owner's (root must not act on
 * names in it).  Else -1, why in err.
 */
int	safedir_check(const char *dir, uid_t owner, int *shared,
	    struct pa_err *);

/*
 * metrics.c: the counters, bumped without a lock from any thread, and
 * metrics_render() - all of them in the Prometheus text format (0.0.4)
 * into out: 0, or PA_ETOOBIG when out's cap is too small
 */
struct policy_outcome;
void	metrics_decided(const struct decision *, const struct policy_outcome *);
void	metrics_forged(size_t n);
/* metrics_latency - one decision, begun at start (CLOCK_MONOTONIC) */
void	metrics_latency(const struct timespec *start);
int	metrics_render(struct sbuf *out);

/*
 * metrics-http.c: metrics_address - MetricsListen's "ADDRESS:PORT"
 * (numeric; IPv6 in brackets) into ss, refused unless a loopback address
 * when remote is 0: 0 or PA_ERROR, why in err.  metrics_bind - listen
 * there, if MetricsListen is set (before privileges are dropped);
 * metrics_start - serve it from libmicrohttpd's thread (after);
 * metrics_stop - at the end.
 */
struct sockaddr_storage;
int	metrics_address(const char *spec, int remote,
	    struct sockaddr_storage *ss, socklen_t *len, struct pa_err *);
int	metrics_bind(const struct pa_config *, struct pa_err *);
int	metrics_start(struct pa_err *);
void	metrics_stop(void);

/*
 * places.c: the places MaximumConnections gives.  A struct place is part
 * of a connection's data (zeroed).  Each callback of the connection
 * begins with places_enter(), which says whether its place was taken
 * since its last callback (its memory is then gone: yield freed it), and
 * ends with places_leave().  places_take - a place for p: a free one (or
 * p's own: PLACE_FREE), one taken from a connection that waited for its
 * MTA grace seconds at least (PLACE_TAKEN: yield(q) frees q's memory
 * under the lock, loss says how long it waited), or PLACE_NONE.
 * places_release - at the connection's end, before its data is freed.
 */
struct place {
	struct place	*prev, *next;	/* among the places held */
	double		 since;		/* waiting for its MTA since */
	int		 busy;		/* one of its callbacks runs */
	int		 in_message;	/* after MAIL FROM */
	int		 held;
	int		 lost;		/* taken, not yet told */
};
struct place_loss {
	long		 waited;	/* seconds its MTA was silent */
	int		 in_message;
};
enum place_got { PLACE_FREE, PLACE_TAKEN, PLACE_NONE };
enum place_got	places_take(struct place *, long limit, long grace,
		    void (*yield)(struct place *), struct place_loss *);
int		places_enter(struct place *);
void		places_leave(struct place *, int in_message);
void		places_release(struct place *);

/*
 * conclude.c: what becomes of a message at its end (cf the settings it
 * was judged under).  conclude - act on d, the decision on msg (deciding
 * began at start, CLOCK_MONOTONIC): counted and logged, then the reply
 * (SMFIS_REJECT, SMFIS_TEMPFAIL) or our header fields added (and the
 * quarantine asked) and SMFIS_CONTINUE.  conclude_not_a_patch - msg is
 * neither a patch nor signed: said at debug level, marked "nopatch" with
 * MarkNonPatches, read for documents with LearnFromMail.
 * conclude_unrecorded - the arrival record was not written (unrecorded
 * says why; nothing when it is ""): an error line, saying OnError acted
 * on it when the mail was judged.  conclude_queue_id - the queue ID for
 * the log, "NOQUEUE" when the MTA gave none.
 */
sfsistat	 conclude(SMFICTX *, const struct pa_config *cf,
		    const struct mailmsg *msg, const struct timespec *start,
		    const struct decision *d);
sfsistat	 conclude_not_a_patch(SMFICTX *, const struct pa_config *cf,
		    const struct mailmsg *msg);
void		 conclude_unrecorded(SMFICTX *, const struct pa_err *unrecorded,
		    int judged);
const char	*conclude_queue_id(SMFICTX *);

/* callbacks.c */
extern struct smfiDesc	 milter_desc;
/*
 * callbacks_local_socket - the milter listens on a local socket (set
 * before smfi_main()): only there is the MTA asked to skip steps and to
 * wait for no reply to some
 */
void	callbacks_local_socket(int local);

#endif
