package org.clustersim.bench;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.clustersim.core.kernel.DsolKernel;
import org.clustersim.core.kernel.HeapKernel;
import org.clustersim.core.kernel.SimKernel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The classic hold model: {@code pending} events are pending at all times; each executed
 * event schedules one successor a random delay later (1 ns up to {@code window}), until
 * {@value #EVENTS} events have run.
 * Run through our DSOL kernel (the simulation's default), through the {@link HeapKernel}
 * ({@code simulation.kernel: heap}) and through a bare {@link PriorityQueue} loop doing the same
 * work, so a kernel's overhead shows as a ratio.
 * A thousand pending events fit the cache; a hundred thousand, as many as a 16,384-GPU step with
 * every replica simulated may hold, do not. A window of 1,000 ns puts many events on each instant,
 * as replicas running in lockstep do; one of 10^9 ns almost none. Scores are events per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class KernelBenchmark {
    static final int EVENTS = 1_000_000;

    @Param({"1000", "100000"})
    int pending;

    @Param({"1000", "1000000000"})
    int window;

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long dsolKernel() {
        return hold(new DsolKernel());
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long heapKernel() {
        return hold(new HeapKernel());
    }

    /** The hold model run through {@code kernel}; returns the events executed. */
    private long hold(SimKernel kernel) {
        Hold hold = new Hold(pending, window, kernel::now, kernel::schedule);
        hold.start();
        kernel.run();
        return hold.executed;
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long barePriorityQueue() {
        BareLoop loop = new BareLoop(pending);
        Hold hold = new Hold(pending, window, () -> loop.now, loop::schedule);
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

        private final int pending;
        private final int window;
        private final Clock clock;
        private final Scheduler scheduler;
        private final SplittableRandom random = new SplittableRandom(42);
        private long scheduled;
        long executed;

        Hold(int pending, int window, Clock clock, Scheduler scheduler) {
            this.pending = pending;
            this.window = window;
            this.clock = clock;
            this.scheduler = scheduler;
        }

        void start() {
            for (int i = 0; i < pending; i++) {
                scheduled++;
                scheduler.schedule(random.nextInt(window), this);
            }
        }

        @Override
        public void run() {
            executed++;
            if (scheduled < EVENTS) {
                scheduled++;
                scheduler.schedule(clock.now() + 1 + random.nextInt(window), this);
            }
        }
    }

    /** A minimal event loop: a binary heap ordered by time, then by insertion order. */
    static final class BareLoop {
        private record Event(long time, long seq, Runnable action) {
        }

        private final PriorityQueue<Event> queue;
        private long seq;
        long now;

        BareLoop(int pending) {
            queue = new PriorityQueue<>(2 * pending,
                    (a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
        }

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
