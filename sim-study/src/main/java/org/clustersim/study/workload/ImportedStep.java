package org.clustersim.study.workload;

import java.nio.file.Path;
import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.study.scenario.WorkloadScenario;
import org.clustersim.topology.Topology;

/**
 * A workload scenario's imported trace simulated on its cluster: the traces read, scaled to
 * {@code workload.ranks} where given ({@link DataParallelCopies}), mapped onto a task graph and run once with the default network model. What {@code run} reports for a scenario
 * with a {@code workload} section.
 *
 * @param scenario the scenario
 * @param ranks    the rank traces read
 * @param built    the task graph and what went into it
 * @param result   the simulation's result
 */
public record ImportedStep(WorkloadScenario scenario, List<RankTrace> ranks, EtTaskGraph.Built built,
                           Simulation.Result result) {

    /** Reads, maps and simulates {@code scenario}'s trace; bad trace files are {@code InputException}s. */
    public static ImportedStep of(WorkloadScenario scenario) {
        List<Path> files = EtTraceReader.files(scenario.base(), scenario.chakraTrace(),
                scenario.file() + ": workload.chakraTrace");
        List<RankTrace> ranks = new EtTraceReader().read(files);
        if (scenario.ranks() > 0) {
            ranks = DataParallelCopies.scale(ranks, scenario.ranks(), scenario.file() + ": workload.ranks");
        }
        Topology topology = scenario.cluster().build();
        EtTaskGraph.Built built = EtTaskGraph.build(ranks, topology,
                new ComputeCost(scenario.byDuration() ? null : scenario.device(), scenario.durationScale()), scenario.collectiveAlgorithm());
        return new ImportedStep(scenario, ranks, built, Simulation.run(built.graph(), topology, RunOptions.DEFAULT));
    }

    /** The step's time: from the start to the last task's end, ns. */
    public long stepNs() {
        return result.timeline().makespan();
    }

    /** Mean over the ranks of the share of the step their compute streams were busy, in [0, 1]. */
    public double computeBusyShare() {
        Timeline t = result.timeline();
        TaskGraph g = built.graph();
        if (stepNs() == 0) {
            return 0;
        }
        double busy = 0;
        for (int s = 0; s < g.streams().size(); s++) {
            if (g.stream(s).name().equals("compute")) {
                busy += t.busy(s);
            }
        }
        return busy / ((double) stepNs() * built.ranks());
    }
}
