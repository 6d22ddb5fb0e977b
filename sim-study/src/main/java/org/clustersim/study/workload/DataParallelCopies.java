package org.clustersim.study.workload;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import org.clustersim.core.input.InputException;

/**
 * A trace of N ranks replayed at k x N ranks by scaling its data-parallel degree. The rule: the
 * traced ranks are one group of copies; rank r + j N (copy j) runs rank r's nodes. A collective
 * whose process group spans all N traced ranks (or has no {@code pg_name}) is the data-parallel
 * group's and spans all k N ranks, with the same {@code comm_size} (the buffer, e.g. the gradients,
 * does not change with the degree); a collective of a smaller group runs within each copy over the
 * same ranks moved by j N (tensor, pipeline or expert groups); sends and receives stay within their
 * copy. Refused where the trace has no collective over all its ranks (nothing to scale) or k N is
 * not a whole multiple of N.
 */
public final class DataParallelCopies {
    private DataParallelCopies() {
    }

    /**
     * The traces at {@code ranks} ranks.
     *
     * @param field the scenario field that asked, for errors
     * @throws InputException where the rule above cannot apply
     */
    public static List<RankTrace> scale(List<RankTrace> traced, int ranks, String field) {
        int n = traced.size();
        if (ranks == n) {
            return traced;
        }
        if (ranks < n || ranks % n != 0) {
            throw new InputException(field + ": found " + ranks + ", but the trace has " + n + " ranks; expected a "
                    + "whole multiple of " + n + " (the trace's ranks copied along a larger data-parallel degree)");
        }
        Map<String, TreeSet<Integer>> members = new HashMap<>();
        boolean global = false;
        for (RankTrace t : traced) {
            for (EtNode node : t.nodes()) {
                if (node.kind() == EtNode.Kind.COLLECTIVE) {
                    members.computeIfAbsent(node.processGroup(), g -> new TreeSet<>()).add(t.rank());
                    global |= node.processGroup().isEmpty();
                }
            }
        }
        for (Map.Entry<String, TreeSet<Integer>> e : members.entrySet()) {
            global |= !e.getKey().isEmpty() && e.getValue().size() == n;
        }
        if (!global) {
            throw new InputException(field + ": found " + ranks + ", but no collective of the trace ("
                    + traced.get(0).file().getParent() + ") spans all " + n + " ranks, so it has no data-parallel group "
                    + "to scale; expected a trace whose gradient collectives span every traced rank");
        }
        List<RankTrace> out = new ArrayList<>(ranks);
        for (int j = 0; j < ranks / n; j++) {
            for (RankTrace t : traced) {
                out.add(new RankTrace(t.file(), t.rank() + j * n, t.version(), j == 0 ? t.nodes()
                        : moved(t.nodes(), j, n, members)));
            }
        }
        return out;
    }

    private static List<EtNode> moved(List<EtNode> nodes, int copy, int n, Map<String, TreeSet<Integer>> members) {
        List<EtNode> out = new ArrayList<>(nodes.size());
        for (EtNode e : nodes) {
            switch (e.kind()) {
                case COLLECTIVE -> {
                    boolean dp = e.processGroup().isEmpty() || members.get(e.processGroup()).size() == n;
                    out.add(dp ? e : new EtNode(e.id(), e.name(), e.kind(), e.ctrlDeps(), e.dataDeps(),
                            e.durationMicros(), e.numOps(), e.commType(), e.commBytes(), e.commSrc(), e.commDst(),
                            e.commTag(), e.processGroup() + "#copy" + copy, e.cpuOp(), e.stream()));
                }
                case SEND, RECV -> out.add(new EtNode(e.id(), e.name(), e.kind(), e.ctrlDeps(), e.dataDeps(),
                        e.durationMicros(), e.numOps(), e.commType(), e.commBytes(),
                        e.commSrc() < 0 ? -1 : e.commSrc() + copy * n, e.commDst() < 0 ? -1 : e.commDst() + copy * n,
                        e.commTag(), e.processGroup(), e.cpuOp(), e.stream()));
                default -> out.add(e);
            }
        }
        return out;
    }
}
