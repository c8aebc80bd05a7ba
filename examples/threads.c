/* pthreads under an emulator, printed so that the output is the same on
 * any faithful one (QEMU's is the oracle in tests/cli/emulate-threads.sh):
 *
 *   threads [N]   N threads (default 4) add to a counter under a mutex
 *                 (ends exact), a condition variable hands a token round
 *                 them in order, every one is joined; thread-local
 *                 storage stays per thread; exit status 0
 *   threads deadlock   two threads wait for each other for ever
 *   threads fork       fork() (trawl stops with a message)
 *   threads kill       a worker sends SIGUSR1 to the main thread (tgkill)
 *   threads timeout    a timed wait that nobody signals ends ETIMEDOUT while
 *                      a worker waits with no timeout
 *   threads mask       the main thread blocks SIGUSR1, a worker sends it to
 *                      the process: the worker (mask per thread) takes it
 *   threads many N     N threads alive at once (all wait at a barrier),
 *                      then each adds its number under a mutex
 *   threads eintr      the main thread sleeps in futex waits, a worker
 *                      pthread_kill()s it: EINTR without SA_RESTART, EINTR
 *                      with a timeout even with SA_RESTART, the wait made
 *                      again with SA_RESTART and no timeout (then woken)
 *   threads term       a worker pthread_kill()s the main thread, asleep in
 *                      pthread_join, with SIGTERM (no handler): the
 *                      program dies of it, exit status 143
 *   threads robust     a thread exits holding a robust mutex: the next
 *                      locker gets EOWNERDEAD, also one already waiting
 *                      (the kernel walks the dead thread's robust list)
 */
#include <signal.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 500

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn, nthreads;
static __thread int mine;   /* TPIDR_EL0 per thread */
static int order[64], norder;

static void *work(void *arg)
{
	int id = (int)(long)arg;
	mine = id * 100;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter += id + 1;
		pthread_mutex_unlock(&lock);
		if (i % 100 == 0)
			sched_yield();
	}
	/* take turns: thread k goes when turn == k */
	pthread_mutex_lock(&lock);
	while (turn != id)
		pthread_cond_wait(&turn_changed, &lock);
	order[norder++] = id;
	turn++;
	pthread_cond_broadcast(&turn_changed);
	pthread_mutex_unlock(&lock);
	return (void *)(long)(mine + 1);
}

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;

static void *grab(void *arg)
{
	pthread_mutex_t *first = arg ? &a : &b, *second = arg ? &b : &a;
	pthread_mutex_lock(first);
	pthread_barrier_wait(&both);
	pthread_mutex_lock(second);
	return NULL;
}

static volatile int got;
static volatile pid_t handled_by;
static pid_t main_tid;
static pthread_barrier_t started, ready;

static void on_usr1(int sig)
{
	got = sig;
	handled_by = (pid_t)syscall(SYS_gettid);
}

static void *send_to_process(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&started); /* this thread's own mask is set */
	pthread_barrier_wait(&ready);   /* main has blocked SIGUSR1 by now */
	kill(getpid(), SIGUSR1);
	return (void *)(long)syscall(SYS_gettid);
}

static void *send(void *arg)
{
	(void)arg;
	syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
	return NULL;
}

/* eintr: the worker signals the main thread once it sleeps (it sleeps
 * 100 ms first, for the real kernel), waits for the handler, then wakes
 * the word the main thread may still wait on */
static volatile int handled, word;
static pthread_t main_thread;

static void on_usr2(int sig)
{
	(void)sig;
	handled++;
}

static void *interrupt_main(void *arg)
{
	(void)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);   /* only the main thread takes it */
	struct timespec pause = { 0, 100000000 };
	nanosleep(&pause, NULL);
	int before = handled;
	pthread_kill(main_thread, SIGUSR2);
	while (handled == before)
		sched_yield();
	nanosleep(&pause, NULL);
	__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

static void *terminate_main(void *arg)
{
	(void)arg;
	pthread_kill(main_thread, SIGTERM);
	struct timespec pause = { 1, 0 };
	nanosleep(&pause, NULL);
	return NULL;
}

static void eintr_case(const char *name, int flags, int timed)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr2;
	sa.sa_flags = flags;
	sigaction(SIGUSR2, &sa, NULL);
	word = 0;
	pthread_t k;
	pthread_create(&k, NULL, interrupt_main, NULL);
	struct timespec ten = { 10, 0 };
	long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, timed ? &ten : NULL, NULL, 0);
	int err = r < 0 ? errno : 0;
	pthread_join(k, NULL);
	printf("%s: futex %ld %s, handler ran %d\n", name, r,
	       err == EINTR ? "EINTR" : err ? strerror(err) : "woken", handled);
	handled = 0;
}

static pthread_cond_t never = PTHREAD_COND_INITIALIZER, go = PTHREAD_COND_INITIALIZER;
static int go_flag;

static void *wait_for_go(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!go_flag)
		pthread_cond_wait(&go, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void timeout(void)
{
	pthread_t w;
	pthread_create(&w, NULL, wait_for_go, NULL);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30; /* the emulator must not wait 30 s for it */
	pthread_mutex_lock(&lock);
	int r = pthread_cond_timedwait(&never, &lock, &until);
	go_flag = 1;
	pthread_cond_signal(&go);
	pthread_mutex_unlock(&lock);
	pthread_join(w, NULL);
	printf("timedwait %s\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r));
}

static pthread_mutex_t rm, rm2;
static int holding, main_waits;

/* locks a robust mutex and exits holding it; rm2 only once the main
 * thread is about to lock it, and after yielding long enough for it to
 * block there */
static void *die_holding(void *arg)
{
	pthread_mutex_t *m = arg ? &rm2 : &rm;
	pthread_mutex_lock(m);
	if (arg) {
		__atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&main_waits, __ATOMIC_ACQUIRE))
			sched_yield();
		for (int i = 0; i < 100; i++)
			sched_yield();
	}
	return NULL;
}

static const char *lock_result(int r)
{
	return r == EOWNERDEAD ? "EOWNERDEAD" : r == 0 ? "ok" : strerror(r);
}

static int robust(void)
{
	pthread_mutexattr_t at;
	pthread_t t;
	pthread_mutexattr_init(&at);
	int r = pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
	if (r == 0)
		r = pthread_mutex_init(&rm, &at);
	if (r == 0)
		r = pthread_mutex_init(&rm2, &at);
	if (r) {
		printf("robust mutex: %s\n", strerror(r));
		return 1;
	}
	pthread_create(&t, NULL, die_holding, NULL);
	pthread_join(t, NULL);
	r = pthread_mutex_lock(&rm);
	printf("lock after its owner died: %s\n", lock_result(r));
	printf("consistent: %s\n", lock_result(pthread_mutex_consistent(&rm)));
	pthread_mutex_unlock(&rm);
	/* the owner dies while this thread waits in pthread_mutex_lock */
	pthread_create(&t, NULL, die_holding, (void *)1);
	while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		sched_yield();
	__atomic_store_n(&main_waits, 1, __ATOMIC_RELEASE);
	r = pthread_mutex_lock(&rm2);
	printf("waiter when the owner died: %s\n", lock_result(r));
	pthread_mutex_consistent(&rm2);
	pthread_mutex_unlock(&rm2);
	pthread_join(t, NULL);
	printf("lock again: %s %s\n", lock_result(pthread_mutex_lock(&rm)),
	       lock_result(pthread_mutex_lock(&rm2)));
	return 0;
}

static pthread_barrier_t all_started;

static void *count_in(void *arg)
{
	pthread_barrier_wait(&all_started);
	pthread_mutex_lock(&lock);
	counter += (long)arg;
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* n threads that all exist at the same moment: none can pass the
 * barrier before the last one was made */
static int many(int n)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	if (!t || pthread_barrier_init(&all_started, NULL, (unsigned)n + 1) != 0)
		return 1;
	int made = 0;
	for (int i = 0; i < n; i++) {
		int r = pthread_create(&t[i], NULL, count_in, (void *)(long)(i + 1));
		if (r != 0) {
			printf("pthread_create %d: %s\n", i + 1, strerror(r));
			break;
		}
		made++;
	}
	printf("made %d threads\n", made);
	if (made < n)
		return 1;
	pthread_barrier_wait(&all_started);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("counter %ld expected %ld\n", counter, (long)n * (n + 1) / 2);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && strcmp(argv[1], "robust") == 0)
		return robust();
	if (argc > 2 && strcmp(argv[1], "many") == 0)
		return many(atoi(argv[2]));
	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		printf("fork %d\n", fork() >= 0);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
		timeout();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "mask") == 0) {
		pthread_t k;
		void *worker;
		signal(SIGUSR1, on_usr1);
		pthread_barrier_init(&started, NULL, 2);
		pthread_barrier_init(&ready, NULL, 2);
		pthread_create(&k, NULL, send_to_process, NULL);
		pthread_barrier_wait(&started);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		pthread_barrier_wait(&ready);
		pthread_join(k, &worker);
		printf("got %d by worker %d\n", got, handled_by == (pid_t)(long)worker);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "eintr") == 0) {
		main_thread = pthread_self();
		eintr_case("no SA_RESTART", 0, 0);
		eintr_case("SA_RESTART, timeout", SA_RESTART, 1);
		eintr_case("SA_RESTART", SA_RESTART, 0);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "term") == 0) {
		pthread_t k;
		main_thread = pthread_self();
		pthread_create(&k, NULL, terminate_main, NULL);
		pthread_join(k, NULL);
		printf("not reached\n");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "kill") == 0) {
		pthread_t k;
		signal(SIGUSR1, on_usr1);
		main_tid = (pid_t)syscall(SYS_gettid);
		pthread_create(&k, NULL, send, NULL);
		pthread_join(k, NULL);
		printf("got %d tid %d\n", got, main_tid == getpid());
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
		pthread_t t1, t2;
		pthread_barrier_init(&both, NULL, 2);
		pthread_create(&t1, NULL, grab, (void *)1);
		pthread_create(&t2, NULL, grab, NULL);
		pthread_join(t1, NULL);
		printf("not reached\n");
		return 0;
	}
	nthreads = argc > 1 ? atoi(argv[1]) : 4;
	if (nthreads < 1 || nthreads > 64)
		return 2;
	pthread_t t[64];
	mine = -1;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(long)i) != 0) {
			printf("pthread_create failed\n");
			return 1;
		}
	long sum = 0;
	for (int i = 0; i < nthreads; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	long want = 0;
	for (int i = 0; i < nthreads; i++)
		want += (long)(i + 1) * ROUNDS;
	printf("counter %ld expected %ld\n", counter, want);
	printf("order");
	for (int i = 0; i < norder; i++)
		printf(" %d", order[i]);
	printf("\njoin sum %ld main tls %d\n", sum, mine);
	/* a second round reuses the exited threads' cores */
	pthread_t u;
	pthread_create(&u, NULL, work, (void *)(long)nthreads);
	turn = nthreads;
	pthread_join(u, NULL);
	printf("second round %ld\n", counter - want);
	return 0;
}
