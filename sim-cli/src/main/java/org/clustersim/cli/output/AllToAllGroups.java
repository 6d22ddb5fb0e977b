package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.clustersim.strategies.training.ExpertMesh;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;

/**
 * The groups an MoE layout's token all-to-alls (dispatch and combine) run over: every
 * expert-parallel group of the {@link ExpertMesh} folded over each pipeline stage's GPUs, as
 * Megatron-core forms them (its expert {@code RankGenerator}'s "ep" groups), with the GPUs and
 * servers of each in a compact form and whether it leaves its server.
 *
 * @param size            GPUs in each group (ep)
 * @param count           groups in the cluster
 * @param perStage        groups per pipeline stage (etp x edp)
 * @param spanningServers groups whose GPUs sit on more than one server (their exchange crosses the network)
 * @param maxServers      the most servers one group spans
 * @param crosses         link classes on the routes between neighbouring members of the first group
 * @param groups          every group, stage by stage
 */
public record AllToAllGroups(int size, int count, int perStage, int spanningServers, int maxServers,
                             List<String> crosses, List<Member> groups) {

    /**
     * One all-to-all group.
     *
     * @param stage   pipeline rank
     * @param gpus    its GPU numbers, runs written {@code first..last} or {@code first..last/step}
     * @param servers the servers (node numbers) it spans, in the same form
     * @param serverCount how many servers
     */
    public record Member(int stage, String gpus, String servers, int serverCount) {
    }

    /** The all-to-all groups of a layout with expert parallelism, or null without. */
    public static AllToAllGroups of(TrainingStep step) {
        if (step.ep() < 2) {
            return null;
        }
        Topology topology = step.topology();
        ExpertMesh experts = step.mesh().experts();
        List<Member> members = new ArrayList<>();
        int spanning = 0;
        int maxServers = 0;
        for (int p = 0; p < step.pp(); p++) {
            for (int[] group : experts.expertParallelGroups(p)) {
                TreeSet<Integer> nodes = new TreeSet<>();
                TreeSet<Integer> gpus = new TreeSet<>();
                for (int d : group) {
                    gpus.add(d);
                    nodes.add(topology.device(d).node());
                }
                spanning += nodes.size() > 1 ? 1 : 0;
                maxServers = Math.max(maxServers, nodes.size());
                members.add(new Member(p, compact(gpus), compact(nodes), nodes.size()));
            }
        }
        int[] first = experts.expertParallelGroups(0).get(0);
        List<Link> route = new ArrayList<>();
        for (int i = 0; i < first.length; i++) {
            route.addAll(topology.route(first[i], first[(i + 1) % first.length]).links());
        }
        List<String> crosses = org.clustersim.study.whatif.Cable.classesOf(route);
        return new AllToAllGroups(step.ep(), members.size(), members.size() / step.pp(), spanning, maxServers,
                crosses, members);
    }

    /** Ascending numbers as runs of a constant step: {@code 0..63}, {@code 0..126/2}, {@code 3, 9}. */
    static String compact(Set<Integer> sorted) {
        List<Integer> v = new ArrayList<>(sorted);
        List<String> parts = new ArrayList<>();
        int i = 0;
        while (i < v.size()) {
            int j = i;
            if (i + 2 < v.size()) {
                int step = v.get(i + 1) - v.get(i);
                while (j + 1 < v.size() && v.get(j + 1) - v.get(j) == step) {
                    j++;
                }
                if (j - i >= 2) {
                    parts.add(v.get(i) + ".." + v.get(j) + (step == 1 ? "" : "/" + step));
                    i = j + 1;
                    continue;
                }
            }
            parts.add(String.valueOf(v.get(i)));
            i++;
        }
        return String.join(", ", parts);
    }
}
