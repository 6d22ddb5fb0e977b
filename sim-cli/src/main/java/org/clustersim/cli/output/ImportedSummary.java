package org.clustersim.cli.output;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.clustersim.study.workload.EtTaskGraph;
import org.clustersim.study.workload.ImportedStep;

/**
 * What {@code run --summary} writes for a workload scenario (an imported Chakra trace): the step
 * time, the tasks the trace became and each rank's busy and idle time (docs/workloads.md,
 * "Outputs"). A model scenario's figures that need the model - tokens, MFU, memory, the pipeline
 * bubble - have no counterpart here and are left out.
 *
 * @param scenario            the scenario's name
 * @param chakraTrace         the trace files as the scenario names them
 * @param cluster             the cluster's name
 * @param stepTimeSeconds     the step, seconds
 * @param stepTimeNs          the step, ns
 * @param ranks               ranks simulated
 * @param tasks               tasks simulated
 * @param computeTasks        compute nodes timed
 * @param collectiveTasks     collectives (one per group)
 * @param transferTasks       send/receive pairs
 * @param untimedTasks        memory, metadata and host nodes, kept for their dependencies
 * @param events              kernel events executed
 * @param computeBusyFraction mean over the ranks of the share of the step their compute streams were busy
 * @param devices             each rank's time
 */
public record ImportedSummary(String scenario, String chakraTrace, String cluster, double stepTimeSeconds,
                              long stepTimeNs, int ranks, int tasks, int computeTasks, int collectiveTasks,
                              int transferTasks, int untimedTasks, long events, double computeBusyFraction,
                              List<ImportedStep.RankTime> devices) {

    /** The summary of a simulated imported step. */
    public static ImportedSummary of(ImportedStep step) {
        EtTaskGraph.Built b = step.built();
        return new ImportedSummary(step.scenario().name(), step.scenario().chakraTrace(),
                step.scenario().cluster().name(), step.stepNs() / 1e9, step.stepNs(), b.ranks(), b.graph().taskCount(),
                b.computes(), b.collectives(), b.transfers(), b.untimed(), step.result().timeline().events(),
                step.computeBusyShare(), step.rankTimes());
    }

    /** One row per rank as CSV. */
    public void writeCsv(OutputStream out) throws IOException {
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write("rank,name,computeBusyNs,computeIdleNs,commBusyNs,exposedCommNs\n");
        for (ImportedStep.RankTime r : devices) {
            w.write(r.rank() + "," + r.name() + "," + r.computeBusyNs() + "," + r.computeIdleNs() + ","
                    + r.commBusyNs() + "," + r.exposedCommNs() + "\n");
        }
        w.flush();
    }
}
