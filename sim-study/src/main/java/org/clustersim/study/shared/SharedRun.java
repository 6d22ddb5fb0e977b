package org.clustersim.study.shared;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.Interference;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.study.scenario.FaultEvents;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.SharedScenario;
import org.clustersim.topology.Topology;

/**
 * The jobs of a shared cluster simulated together, and each alone on its placement. Each job's
 * steps are built by its own scenario ({@link SimulatedStep#build}) on a cluster of its size with
 * the shared cluster's servers and fabric, moved onto its placed servers and joined with the
 * others into one task graph ({@link TaskGraph#union}) that one engine and one flow network run:
 * flows of different jobs share links max-min fairly, compute and its interference stay per GPU.
 * The shared cluster's faults and stragglers apply to every run. Each job is measured from its
 * part of the timeline ({@link Timeline#part}) with {@link StepFigures} at its last step that
 * ended while every job still ran (its last step when it runs alone in the file), and against the
 * same step of the same graph run alone on the same servers: its slowdown. Under
 * {@code simulation.steps: auto} the run is repeated with raised step counts until each job's
 * measured step is at least its own {@code simulation.steps}-th.
 *
 * @param shared   the shared cluster
 * @param graph    every job's tasks, job after job
 * @param result   the run together
 * @param jobs     each job's figures, in file order
 */
public record SharedRun(SharedScenario shared, TaskGraph graph, Simulation.Result result, List<JobRun> jobs) {

    /**
     * One job's outcome.
     *
     * @param job          the job and its servers
     * @param step         its training step
     * @param built        its task graph, under its own device numbering
     * @param firstTask    where its tasks start in the shared graph
     * @param together     its part of the shared run
     * @param figures      measured together
     * @param alone        the same step measured alone on the same servers
     * @param measuredStep the step measured (from 0)
     * @param overlapped   whether that step ended while every other job still ran
     * @param aloneLinks   what each link carried in the job's run alone on its servers: which links its
     *                     flows cross (the same routes as together under static routing), for the
     *                     report's link heat map coloured by job
     */
    public record JobRun(SharedScenario.Job job, TrainingStep step, TrainingStep.Built built, int firstTask,
                         Simulation.Result together, StepFigures figures, StepFigures alone, int measuredStep,
                         boolean overlapped, LinkUsage aloneLinks) {
        /** Step time together over step time alone. */
        public double slowdown() {
            return alone.stepTimeNs() == 0 ? 1 : (double) figures.stepTimeNs() / alone.stepTimeNs();
        }
    }

    /** Tokens per second of every job together: the cluster's aggregate throughput. */
    public double tokensPerSecond() {
        double sum = 0;
        for (JobRun j : jobs) {
            sum += j.figures().tokensPerSecond();
        }
        return sum;
    }

    /**
     * Builds, places and simulates every job together and alone, on up to {@code threads} threads
     * (the runs are independent: the same figures on any count); {@code linkTracks} records each
     * link's throughput over time in the shared run.
     */
    public static SharedRun of(SharedScenario shared, boolean linkTracks, int threads) {
        SharedRun run = once(shared, linkTracks, threads);
        if (!shared.autoSteps()) {
            return run;
        }
        int[] wanted = shared.jobs().stream().mapToInt(j -> j.scenario().steps()).toArray();
        for (int round = 0; round < AUTO_ROUNDS && !enough(run, wanted); round++) {
            run = once(run.shared().withJobs(raised(run, wanted)), linkTracks, threads);
        }
        return run;
    }

    /** Most reruns with raised step counts under {@code simulation.steps: auto}. */
    static final int AUTO_ROUNDS = 4;

    /** Whether each job's measured step is at least its {@code wanted}-th, ended while every job still ran. */
    static boolean enough(SharedRun run, int[] wanted) {
        for (int i = 0; i < wanted.length; i++) {
            JobRun j = run.jobs().get(i);
            if (!j.overlapped() || j.measuredStep() < wanted[i] - 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * Each job with enough steps to cover the longest of the jobs' wanted spans, from their step
     * times together in {@code run}: at least ceil(span / step time) + 1, never fewer than it had.
     */
    static List<SharedScenario.Job> raised(SharedRun run, int[] wanted) {
        long span = 0;
        for (int i = 0; i < wanted.length; i++) {
            span = Math.max(span, wanted[i] * run.jobs().get(i).figures().stepTimeNs());
        }
        List<SharedScenario.Job> out = new ArrayList<>();
        boolean changed = false;
        for (JobRun j : run.jobs()) {
            long step = Math.max(1, j.figures().stepTimeNs());
            int had = j.job().scenario().steps();
            int steps = (int) Math.min(Math.max(had, (span + step - 1) / step + 1), MAX_AUTO_STEPS);
            changed |= steps != had;
            out.add(j.job().withSteps(steps));
        }
        if (!changed) {
            // contention moved the ends: one more step each
            out.replaceAll(j -> j.withSteps(Math.min(j.scenario().steps() + 1, MAX_AUTO_STEPS)));
        }
        return out;
    }

    /** Most steps a job is raised to. */
    static final int MAX_AUTO_STEPS = 256;

    private static SharedRun once(SharedScenario shared, boolean linkTracks, int threads) {
        List<SharedScenario.Job> jobs = shared.jobs();
        int gpn = shared.cluster().gpusPerNode();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, jobs.size() + 1)), r -> {
            Thread t = new Thread(r, "shared-run");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<TrainingStep>> steps = new ArrayList<>();
            for (SharedScenario.Job j : jobs) {
                steps.add(pool.submit(() -> j.scenario().trainingStep()));
            }
            List<TrainingStep> step = new ArrayList<>();
            List<Future<TrainingStep.Built>> builds = new ArrayList<>();
            for (int i = 0; i < jobs.size(); i++) {
                TrainingStep s = get(steps.get(i));
                step.add(s);
                SharedScenario.Job j = jobs.get(i);
                builds.add(pool.submit(() -> SimulatedStep.build(j.scenario(), s)));
            }
            for (TrainingStep s : step) {
                // a job's devices are moved server by server: its own cluster numbers them server-major
                // (TPU slices move chip by chip to the same place in another slice: SharedScenario.Job#deviceMap)
                Topology own = s.topology();
                if (own.spec().orElse(null) instanceof org.clustersim.topology.TorusSpec) {
                    continue;
                }
                for (int d = 0; d < own.deviceCount(); d++) {
                    if (own.device(d).node() != d / gpn) {
                        throw new IllegalStateException(own.name() + " numbers device " + d + " on server "
                                + own.device(d).node() + ", not " + d / gpn + ": its jobs cannot be moved by server");
                    }
                }
            }
            List<TrainingStep.Built> built = new ArrayList<>();
            for (Future<TrainingStep.Built> f : builds) {
                built.add(get(f));
            }
            Topology layout = shared.topology();
            List<DeviceInfo> devices = new ArrayList<>();
            for (int d = 0; d < layout.deviceCount(); d++) {
                devices.add(new DeviceInfo(d, layout.device(d).name(), layout.device(d).node()));
            }
            List<TaskGraph> parts = new ArrayList<>();
            List<int[]> maps = new ArrayList<>();
            int[] first = new int[jobs.size()];
            int tasks = 0;
            for (int i = 0; i < jobs.size(); i++) {
                parts.add(built.get(i).graph());
                maps.add(jobs.get(i).deviceMap(gpn));
                first[i] = tasks;
                tasks += built.get(i).graph().taskCount();
            }
            TaskGraph union = TaskGraph.union(devices, parts, maps);
            List<Scenario> scenarios = jobs.stream().map(SharedScenario.Job::scenario).toList();
            Future<Simulation.Result> together = pool.submit(() -> run(shared, union, scenarios, step, maps, linkTracks));
            List<Future<Simulation.Result>> alone = new ArrayList<>();
            for (int i = 0; i < jobs.size(); i++) {
                TaskGraph one = jobs.size() == 1 ? union : TaskGraph.union(devices, List.of(parts.get(i)),
                        List.of(maps.get(i)));
                List<Scenario> c = List.of(scenarios.get(i));
                List<TrainingStep> s = List.of(step.get(i));
                List<int[]> m = List.of(maps.get(i));
                alone.add(jobs.size() == 1 ? together : pool.submit(() -> run(shared, one, c, s, m, false)));
            }
            Simulation.Result run = get(together);
            List<Simulation.Result> each = new ArrayList<>();
            long commonEnd = Long.MAX_VALUE;
            for (int i = 0; i < jobs.size(); i++) {
                Timeline part = run.timeline().part(parts.get(i), first[i]);
                each.add(new Simulation.Result(part, run.links(), run.rerates(), run.flowsRerated()));
                commonEnd = Math.min(commonEnd, part.makespan());
            }
            List<JobRun> out = new ArrayList<>();
            for (int i = 0; i < jobs.size(); i++) {
                SharedScenario.Job j = jobs.get(i);
                Simulation.Result mine = each.get(i);
                StepWindows windows = StepWindows.of(mine.timeline(), built.get(i).firstTasks());
                int measured = windows.last();
                while (measured > 0 && windows.end(measured) > commonEnd) {
                    measured--;
                }
                boolean overlapped = windows.end(measured) <= commonEnd;
                Simulation.Result solo = get(alone.get(i));
                Simulation.Result soloPart = jobs.size() == 1 ? mine
                        : new Simulation.Result(solo.timeline().part(parts.get(i), 0), solo.links(), solo.rerates(),
                        solo.flowsRerated());
                StepFigures fig = StepFigures.of(j.scenario(), step.get(i), built.get(i), mine, measured);
                StepFigures soloFig = jobs.size() == 1 ? fig
                        : StepFigures.of(j.scenario(), step.get(i), built.get(i), soloPart, measured);
                out.add(new JobRun(j, step.get(i), built.get(i), first[i], mine, fig, soloFig, measured, overlapped,
                        solo.links()));
            }
            return new SharedRun(shared, union, run, List.copyOf(out));
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs {@code graph} (the jobs of {@code steps}, placed by {@code maps}) on a topology of its own. */
    private static Simulation.Result run(SharedScenario shared, TaskGraph graph, List<Scenario> scenarios,
                                         List<TrainingStep> steps, List<int[]> maps, boolean linkTracks) {
        Topology topology = shared.topology();
        FaultEvents faults = shared.faultEvents(topology);
        int[] jobOf = new int[graph.devices().size()];
        java.util.Arrays.fill(jobOf, -1);
        boolean[] on = new boolean[steps.size()];
        Interference base = Interference.NONE;
        boolean any = false;
        for (int i = 0; i < steps.size(); i++) {
            for (int d : maps.get(i)) {
                jobOf[d] = i;
            }
            on[i] = scenarios.get(i).interference();
            if (on[i] && !any) {
                base = steps.get(i).interference(graph);
                any = true;
            }
        }
        Interference interference = Interference.NONE;
        if (any) {
            Interference shares = base;
            interference = task -> on[jobOf[graph.streamDevice(task.stream(0))]] ? shares.computeShare(task) : 0;
        }
        return Simulation.run(graph, topology, RunOptions.DEFAULT.withFidelity(shared.fidelity())
                .withRouting(shared.routing()).withKernel(scenarios.get(0).kernel()).withLinkEvents(faults.links())
                .withDeviceEvents(faults.devices()).withLinkTracks(linkTracks || shared.output().linkCounters())
                .withInterference(interference));
    }

    private static <T> T get(Future<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
