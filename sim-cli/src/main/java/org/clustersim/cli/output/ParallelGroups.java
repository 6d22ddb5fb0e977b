package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.clustersim.study.whatif.Cable;
import org.clustersim.strategies.training.ExpertMesh;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;

/**
 * The communication groups of a layout and what they cross on the fabric, so a user can check
 * that tensor parallelism stays inside a server and see which groups go over the scale-out
 * network: for each kind, the first group (the one holding GPU 0), its servers, and the link classes on the routes between
 * neighbouring members (the ring a collective over the group would use).
 */
public final class ParallelGroups {
    private ParallelGroups() {
    }

    /**
     * One group kind.
     *
     * @param kind     tp, cp, pp, dp or ep, and where the experts have a layout of their own (expert
     *                 parallelism or an expert TP), etp and edp ({@link ExpertMesh})
     * @param size     members
     * @param example  device names of the first group, in rank order
     * @param servers  distinct servers (scale-up domains) the example spans
     * @param crosses  link classes its neighbour routes use, innermost first ({@link Cable#classOf})
     */
    public record Group(String kind, int size, List<String> example, int servers, List<String> crosses) {
    }

    public static List<Group> of(TrainingStep step) {
        List<Group> out = new ArrayList<>();
        int[] tp = new int[step.tp()];
        for (int t = 0; t < tp.length; t++) {
            tp[t] = step.device(t, 0, 0);
        }
        int[] pp = new int[step.pp()];
        for (int p = 0; p < pp.length; p++) {
            pp[p] = step.device(0, p, 0);
        }
        int[] dp = new int[step.dp()];
        for (int d = 0; d < dp.length; d++) {
            dp[d] = step.device(0, 0, d);
        }
        int[] cp = new int[step.cp()];
        for (int c = 0; c < cp.length; c++) {
            cp[c] = step.device(0, c, 0, 0);
        }
        out.add(group("tp", tp, step.topology()));
        out.add(group("cp", cp, step.topology()));
        out.add(group("pp", pp, step.topology()));
        out.add(group("dp", dp, step.topology()));
        ExpertMesh experts = step.mesh().experts();
        out.add(group("ep", experts.expertParallelGroup(0), step.topology()));
        if (step.separateExperts()) {
            out.add(group("etp", experts.tensorGroup(0), step.topology()));
            out.add(group("edp", experts.dataGroup(0), step.topology()));
        }
        return out;
    }

    private static Group group(String kind, int[] members, Topology topology) {
        List<String> names = new ArrayList<>(members.length);
        Set<Integer> servers = new java.util.HashSet<>();
        List<Link> route = new ArrayList<>();
        for (int i = 0; i < members.length; i++) {
            names.add(topology.device(members[i]).name());
            servers.add(topology.device(members[i]).node());
            if (members.length > 1) {
                route.addAll(topology.route(members[i], members[(i + 1) % members.length]).links());
            }
        }
        List<String> crosses = Cable.classesOf(route);
        return new Group(kind, members.length, names, servers.size(), crosses);
    }
}
