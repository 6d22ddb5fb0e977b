package org.clustersim.bench;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

import org.clustersim.cli.ClusterSim;

/**
 * Benchmark: one {@code clustersim} command run several times in one JVM, each run timed with
 * the collector pauses and the JIT compilation that fell inside it. The first run is what a
 * user's single command pays (class loading, interpreted and profiled code, compilation on the
 * same cores, the heap growing); the later ones are what a design-space search pays per step
 * once the code is compiled. The gap between the two is the JVM's warm-up, which no change to
 * the simulation's algorithms removes.
 *
 * <p>Run: {@code java -XX:+UseParallelGC -XX:InitialRAMPercentage=5 -Xmx4g -cp
 * sim-bench/target/benchmarks.jar org.clustersim.bench.RepeatedRun RUNS run SCENARIO --no-trace
 * --summary FILE} (the arguments after {@code RUNS} are the command's). The command's own
 * output is discarded; its errors are shown, and a failing run stops the benchmark with its
 * exit code.
 */
public final class RepeatedRun {
    private RepeatedRun() {
    }

    public static void main(String[] args) {
        int runs = args.length < 2 || !args[0].matches("[1-9][0-9]{0,5}") ? 0 : Integer.parseInt(args[0]);
        if (runs == 0) {
            System.err.println("usage: RepeatedRun RUNS COMMAND [ARGS...], RUNS a whole number from 1");
            System.exit(2);
        }
        String[] command = Arrays.copyOfRange(args, 1, args.length);
        PrintWriter quiet = new PrintWriter(OutputStream.nullOutputStream());
        PrintWriter err = new PrintWriter(System.err, true);
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        double[] seconds = new double[runs];
        System.out.printf(Locale.ROOT, "JVM up %.2f s before the first run%n",
                ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
        for (int i = 0; i < runs; i++) {
            long gc0 = collectorMillis();
            long jit0 = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            int rc = ClusterSim.execute(command, quiet, err);
            seconds[i] = (System.nanoTime() - t0) / 1e9;
            if (rc != 0) {
                System.exit(rc);
            }
            System.out.printf(Locale.ROOT, "run %d: %.2f s wall, %.2f s in collector pauses, %.2f s of JIT compilation%n",
                    i + 1, seconds[i], (collectorMillis() - gc0) / 1e3, (jit.getTotalCompilationTime() - jit0) / 1e3);
        }
        if (runs > 1) {
            double[] warm = Arrays.copyOfRange(seconds, 1, runs);
            Arrays.sort(warm);
            System.out.printf(Locale.ROOT, "first %.2f s; later runs: best %.2f s, median %.2f s%n",
                    seconds[0], warm[0], warm[warm.length / 2]);
        }
    }

    /** Pause time of every collector so far, ms (the JVM's own accounting). */
    private static long collectorMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }
}
