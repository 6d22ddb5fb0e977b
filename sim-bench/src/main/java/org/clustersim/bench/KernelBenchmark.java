package org.clustersim.bench;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.clustersim.core.kernel.DsolKernel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The classic hold model: {@value #PENDING} events are pending at all times; each executed
 * event schedules one successor a random delay later, until {@value #EVENTS} events have run.
 * Run once through our DSOL kernel and once through a bare {@link PriorityQueue} loop doing
 * the same work, so the kernel's overhead shows as a ratio. Scores are events per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class KernelBenchmark {
    static final int PENDING = 1000;
    static final int EVENTS = 1_000_000;

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long dsolKernel() {
        DsolKernel kernel = new DsolKernel();
        Hold hold = new Hold(kernel::now, kernel::schedule);
        hold.start();
        kernel.run();
        return hold.executed;
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long barePriorityQueue() {
        BareLoop loop = new BareLoop();
        Hold hold = new Hold(() -> loop.now, loop::schedule);
        hold.start();
        loop.run();
        return hold.executed;
    }

    /** The hold model itself, written once against a clock and a scheduler. */
    static final class Hold implements Runnable {
        interface Clock {
            long now();
        }

        interface Scheduler {
            void schedule(long at, Runnable action);
        }

        private final Clock clock;
        private final Scheduler scheduler;
        private final SplittableRandom random = new SplittableRandom(42);
        private long scheduled;
        long executed;

        Hold(Clock clock, Scheduler scheduler) {
            this.clock = clock;
            this.scheduler = scheduler;
        }

        void start() {
            for (int i = 0; i < PENDING; i++) {
                scheduled++;
                scheduler.schedule(random.nextInt(1000), this);
            }
        }

        @Override
        public void run() {
            executed++;
            if (scheduled < EVENTS) {
                scheduled++;
                scheduler.schedule(clock.now() + 1 + random.nextInt(1000), this);
            }
        }
    }

    /** A minimal event loop: a binary heap ordered by time, then by insertion order. */
    static final class BareLoop {
        private record Event(long time, long seq, Runnable action) {
        }

        private final PriorityQueue<Event> queue = new PriorityQueue<>(2 * PENDING,
                (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
        private long seq;
        long now;

        void schedule(long at, Runnable action) {
            queue.add(new Event(at, seq++, action));
        }

        void run() {
            Event e;
            while ((e = queue.poll()) != null) {
                now = e.time;
                e.action.run();
            }
        }
    }
}
