package org.clustersim.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import nl.tudelft.simulation.naming.context.event.InitialEventContext;
import nl.tudelft.simulation.naming.context.util.ContextUtil;

import org.junit.jupiter.api.Test;

class DsolKernelTest extends SimKernelContractTest {

    @Override
    protected SimKernel newKernel() {
        return new DsolKernel();
    }

    @Test
    void leavesNoSimulatorThreadBehind() throws InterruptedException {
        DsolKernel k = new DsolKernel();
        k.schedule(5, () -> { });
        k.run();
        // DSOL's worker thread is named after the simulator id; cleanUp() must have ended it.
        long deadline = System.currentTimeMillis() + 5000;
        while (System.currentTimeMillis() < deadline && workerAlive()) {
            Thread.sleep(10);
        }
        assertFalse(workerAlive(), "DSOL worker thread still alive after run()");
    }

    /**
     * Kernels made at once on several threads, as a plan's candidates are, each run to the end.
     * DSOL binds a replication's id in one JVM-wide context; the test removes it first so that the
     * kernels race for its creation, as the first simulations of a plan did.
     */
    @Test
    void kernelsMadeConcurrentlyAllRun() throws Exception {
        int threads = 8;
        for (int round = 0; round < 200; round++) {
            var root = InitialEventContext.instantiate("root");
            if (root.hasKey("step")) {
                ContextUtil.destroySubContext(root, "step");
            }
            CyclicBarrier start = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Long>> runs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long at = 10L * (t + 1);
                    runs.add(pool.submit(() -> {
                        start.await();
                        DsolKernel k = new DsolKernel();
                        long[] seen = new long[1];
                        k.schedule(at, () -> seen[0] = k.now());
                        k.run();
                        return seen[0];
                    }));
                }
                for (int t = 0; t < threads; t++) {
                    assertEquals(10L * (t + 1), runs.get(t).get());
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static boolean workerAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("clustersim") && t.isAlive() && !t.isDaemon());
    }
}
