package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.study.shared.SharedRun;
import org.clustersim.topology.Topology;

/**
 * A shared cluster's run as one trace with a process per job: the run's timeline over the same
 * tasks with each job's devices numbered together and named {@code job/nodeN.gpuG} (the shared
 * cluster's server and GPU), which the trace writers show as one process named after the job.
 */
public final class SharedTrace {
    private SharedTrace() {
    }

    /**
     * The timeline to write; without {@code counters} it carries none (link tracks recorded only
     * for a report's heat map leave the trace as it is without a report).
     */
    public static Timeline timeline(SharedRun run, Topology cluster, boolean counters) {
        List<DeviceInfo> devices = new ArrayList<>();
        List<TaskGraph> parts = new ArrayList<>();
        List<int[]> maps = new ArrayList<>();
        int gpn = run.shared().cluster().gpusPerNode();
        for (int i = 0; i < run.jobs().size(); i++) {
            SharedRun.JobRun j = run.jobs().get(i);
            int[] placed = j.job().deviceMap(gpn);
            int[] map = new int[placed.length];
            for (int d = 0; d < placed.length; d++) {
                map[d] = devices.size();
                devices.add(new DeviceInfo(devices.size(), j.job().name() + "/" + cluster.device(placed[d]).name(), i));
            }
            parts.add(j.built().graph());
            maps.add(map);
        }
        TaskGraph graph = TaskGraph.union(devices, parts, maps);
        return counters ? run.result().timeline().over(graph)
                : run.result().timeline().over(graph, new org.clustersim.core.engine.Counters());
    }
}
