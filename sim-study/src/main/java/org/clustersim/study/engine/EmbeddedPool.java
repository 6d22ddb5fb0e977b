package org.clustersim.study.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;


/**
 * A fixed pool of daemon threads in this JVM: the default engine. Results are collected from
 * the futures in submission order, so they come back in input order whatever the thread count.
 * A task's runtime exception is rethrown as it is (bad input stays bad input).
 */
public final class EmbeddedPool implements TaskEngine {
    private final int threads;
    private final ExecutorService pool;

    public EmbeddedPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.threads = threads;
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "clustersim-worker");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public <I extends Serializable, O extends Serializable> List<O> map(List<I> inputs, Job<I, O> job,
                                                                        Progress progress) {
        List<Future<O>> futures = new ArrayList<>(inputs.size());
        for (I in : inputs) {
            futures.add(pool.submit(() -> {
                O o = job.apply(in);
                progress.done();
                return o;
            }));
        }
        List<O> out = new ArrayList<>(inputs.size());
        try {
            for (Future<O> f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            futures.forEach(f -> f.cancel(true));
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Its threads, but no more than this machine's cores: threads beyond them share the cores. */
    @Override
    public int slots() {
        return Math.min(threads, Runtime.getRuntime().availableProcessors());
    }

    @Override
    public String describe() {
        return "embedded pool, " + threads + (threads == 1 ? " thread" : " threads");
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
