package org.clustersim.strategies.collective;

import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.topology.Topology;

/**
 * One collective (or several concurrent ones) simulated alone on a topology: what the
 * {@code collective} command and the collective tests run. Each collective is one
 * communication task occupying a stream on every participant; the reported time is that
 * task's simulated duration.
 *
 * @param topology  the cluster
 * @param fidelity  network model
 * @param routing   ECMP or adaptive path choice
 * @param linkEvents faults applied (from the start or at a time)
 */
public record CollectiveStudy(Topology topology, Simulation.Fidelity fidelity, Simulation.Routing routing,
                              List<Simulation.LinkEvent> linkEvents) {

    /** With ECMP routing. */
    public CollectiveStudy(Topology topology, Simulation.Fidelity fidelity, List<Simulation.LinkEvent> linkEvents) {
        this(topology, fidelity, Simulation.Routing.ECMP, linkEvents);
    }

    /** A collective to run: operation, group, size S, chosen plan. */
    public record Spec(CollectiveOp op, CommGroup group, long bytes, Collectives.Choice choice) {
    }

    /**
     * Result of a study.
     *
     * @param durationsNs simulated duration of each collective, in the order given
     * @param run         the whole simulation result (timeline, link usage)
     */
    public record Result(long[] durationsNs, Simulation.Result run) {
    }

    /** Plans {@code op} with {@code algorithm} (or auto) and simulates it alone. */
    public long time(String algorithm, CollectiveOp op, CommGroup group, long bytes) {
        Collectives.Choice c = Collectives.plan(algorithm, op, group, bytes, topology);
        return run(List.of(new Spec(op, group, bytes, c))).durationsNs()[0];
    }

    /** Simulates the collectives, all starting at t = 0 (each on its own streams). */
    public Result run(List<Spec> specs) {
        TaskGraph.Builder g = TaskGraph.builder();
        for (int d = 0; d < topology.deviceCount(); d++) {
            g.device(topology.device(d).name(), topology.device(d).node());
        }
        int[] ids = new int[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            Spec s = specs.get(i);
            int[] streams = new int[s.group().size()];
            for (int r = 0; r < streams.length; r++) {
                streams[r] = g.stream(s.group().device(r), "coll" + i, StreamKind.COMMUNICATION);
            }
            ids[i] = g.communicate(s.op().id() + " " + s.choice().algorithm().name() + " #" + i, s.op().id(), streams,
                    s.choice().work());
        }
        Simulation.Result r = Simulation.run(g.build(), topology,
                RunOptions.DEFAULT.withFidelity(fidelity).withRouting(routing).withLinkEvents(linkEvents));
        long[] durations = new long[specs.size()];
        for (int i = 0; i < ids.length; i++) {
            durations[i] = r.timeline().end(ids[i]) - r.timeline().start(ids[i]);
        }
        return new Result(durations, r);
    }
}
