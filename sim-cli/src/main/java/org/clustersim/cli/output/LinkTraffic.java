package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;

/**
 * Which traffic classes (the task categories: tp-comm, cp-comm, ep-comm, pp-p2p, dp-comm) a
 * step's flows put on each link, from their static (ECMP) routes on the healthy fabric, so an
 * operator can see what a cable carries before failing it. Adaptive routing may spread flows
 * over other equal-cost links at run time.
 */
public final class LinkTraffic {
    private LinkTraffic() {
    }

    /** Per link id, the sorted traffic classes crossing it. */
    public static List<Set<String>> classes(TaskGraph graph, Topology topology) {
        List<Set<String>> out = new ArrayList<>();
        for (int i = 0; i < topology.links().size(); i++) {
            out.add(new TreeSet<>());
        }
        // plans are shared between tasks; route each (plan, category) once
        Map<Work.Communication, Set<String>> seen = new IdentityHashMap<>();
        for (int t = 0; t < graph.taskCount(); t++) {
            if (!(graph.task(t).work() instanceof Work.Communication c)) {
                continue;
            }
            String category = graph.task(t).category();
            if (!seen.computeIfAbsent(c, k -> new TreeSet<>()).add(category)) {
                continue;
            }
            for (Phase ph : c.phases()) {
                for (Flow f : ph.flows()) {
                    if (f.srcDevice() == f.dstDevice()) {
                        continue;
                    }
                    for (Link l : topology.route(f.srcDevice(), f.dstDevice(), f.channel()).links()) {
                        out.get(l.id()).add(category);
                    }
                }
            }
        }
        return out;
    }
}
