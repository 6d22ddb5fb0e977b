package org.clustersim.core.kernel;

import static org.junit.jupiter.api.Assertions.assertFalse;


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

    private static boolean workerAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("clustersim") && t.isAlive() && !t.isDaemon());
    }
}
