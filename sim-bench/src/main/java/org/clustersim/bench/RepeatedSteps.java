package org.clustersim.bench;

import java.io.IOException;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

import org.clustersim.study.SimulatedStep;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;

/**
 * Benchmark: training steps simulated one after another in one JVM, the way {@code plan} and the
 * studies run them (scenario read, step built, simulated, measured by {@link SimulatedStep}),
 * taking the given scenarios in turn. Each run prints its wall time, the JIT compilation that fell
 * inside it and the classes it loaded, so the steady per-step cost of a search shows, and so does
 * any run that keeps compiling after the code should have settled. On a machine shared with
 * other work elapsed times swell with the load, so each run also prints CPU times: the
 * simulating thread's, and the JIT compiler threads' where Linux's {@code /proc} shows them
 * ("-" elsewhere). With at least two runs of each scenario, the last half's medians close the
 * output: the steady per-step cost.
 *
 * <p>Run: {@code java -XX:+UseParallelGC -XX:InitialRAMPercentage=5 -Xmx4g -cp
 * sim-bench/target/benchmarks.jar org.clustersim.bench.RepeatedSteps RUNS SCENARIO...}; a
 * scenario that cannot be read or simulated stops the benchmark with its error.
 */
public final class RepeatedSteps {
    private RepeatedSteps() {
    }

    public static void main(String[] args) {
        int runs = args.length < 2 || !args[0].matches("[1-9][0-9]{0,5}") ? 0 : Integer.parseInt(args[0]);
        if (runs == 0) {
            System.err.println("usage: RepeatedSteps RUNS SCENARIO..., RUNS a whole number from 1");
            System.exit(2);
        }
        Path[] files = Arrays.stream(args, 1, args.length).map(Path::of).toArray(Path[]::new);
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        ClassLoadingMXBean classes = ManagementFactory.getClassLoadingMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] seconds = new double[runs];
        double[] compiling = new double[runs];
        double[] cpus = new double[runs];
        double[] compilerCpus = new double[runs];
        for (int i = 0; i < runs; i++) {
            Path file = files[i % files.length];
            long loaded0 = classes.getTotalLoadedClassCount();
            long jit0 = jit.getTotalCompilationTime();
            long compilers0 = compilerThreadsCpuNs();
            long cpu0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            Scenario scenario = new ScenarioReader().read(file);
            SimulatedStep step = SimulatedStep.of(scenario, scenario.trainingStep(), false);
            seconds[i] = (System.nanoTime() - t0) / 1e9;
            double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
            cpus[i] = cpu;
            compiling[i] = (jit.getTotalCompilationTime() - jit0) / 1e3;
            long compilers = compilerThreadsCpuNs();
            compilerCpus[i] = compilers < 0 || compilers0 < 0 ? -1 : (compilers - compilers0) / 1e9;
            String compilerCpu = compilers < 0 || compilers0 < 0 ? "-"
                    : String.format(Locale.ROOT, "%.3f s", (compilers - compilers0) / 1e9);
            System.out.printf(Locale.ROOT, "run %d: %.3f s wall, %.3f s CPU; JIT %.3f s elapsed, %s CPU; %d classes loaded;"
                            + " %s step %.6f s%n",
                    i + 1, seconds[i], cpu, compiling[i], compilerCpu, classes.getTotalLoadedClassCount() - loaded0,
                    file.getFileName(), step.figures().stepTimeNs() / 1e9);
        }
        if (runs >= 2 * files.length) {
            int from = runs / 2;
            double compilersInAll = Arrays.stream(compilerCpus, from, runs).sum();
            System.out.printf(Locale.ROOT, "runs %d-%d, median: %.3f s wall, %.3f s CPU; JIT %.3f s elapsed, %s%n",
                    from + 1, runs, median(seconds, from), median(cpus, from), median(compiling, from),
                    compilerCpus[0] < 0 ? "-" : String.format(Locale.ROOT, "%.3f s CPU (%.2f s in all)",
                            median(compilerCpus, from), compilersInAll));
        }
    }

    /** The median of {@code values} from index {@code from} on. */
    private static double median(double[] values, int from) {
        double[] tail = Arrays.copyOfRange(values, from, values.length);
        Arrays.sort(tail);
        return tail.length % 2 == 1 ? tail[tail.length / 2] : (tail[tail.length / 2 - 1] + tail[tail.length / 2]) / 2;
    }

    /**
     * CPU time of the JIT compiler threads now alive, ns, read from {@code /proc/self/task}; -1
     * where that cannot be read. The JVM does not list its compiler threads among the Java
     * threads, and its own compilation time is elapsed time, which a loaded machine inflates.
     */
    private static long compilerThreadsCpuNs() {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                        sum += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
                    }
                } catch (IOException | RuntimeException ended) {
                    // the thread ended while being read
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return -1;
        }
        return sum;
    }
}
