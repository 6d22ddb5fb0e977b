package org.clustersim.core.network;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.kernel.SimKernel;
import org.clustersim.topology.Link;
import org.clustersim.topology.LinkStates;
import org.clustersim.topology.Route;
import org.clustersim.topology.Topology;

/**
 * The {@code flow} fidelity: every flow is a fluid stream over the links of its route, and
 * link capacity is shared among the flows crossing it by max-min fairness (progressive
 * filling: raise every flow's rate together until a link saturates, freeze the flows through
 * it, continue with the rest). A flow arrives when its last byte has drained plus its route's
 * latency.
 *
 * <p>When flows start, finish, or a link changes state, only the flows connected to the
 * change through shared links (its component) are re-rated; their remaining bytes are
 * settled at the old rates first. Finish times live in the network's own heap with lazy
 * invalidation, and the kernel holds one timer event for the earliest of them, so the number
 * of kernel events grows with flows and rate changes, never with bytes.
 */
public final class FlowNetwork implements FabricNetwork {
    private static final double EPSILON_BYTES = 1e-6;

    private final Topology topology;
    private final SimKernel kernel;
    private final LinkStates states;
    private final LinkUsage usage;
    private final List<List<ActiveFlow>> onLink;
    private final double[] linkRate;
    /** Scratch for {@link #maxMin}: a link's index inside the component being rated. */
    private final int[] componentIndex;
    private final MaxMinScratch scratch = new MaxMinScratch();
    /** Per link, the re-rating pass that last reached it (no mark set to clear per pass). */
    private final long[] linkSeenIn;
    private final long[] linkBusySince;
    private final PriorityQueue<Due> finishing = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.flow.id, b.flow.id));
    private long timerAt = Long.MAX_VALUE;
    private long nextId;
    private long rerates;
    private long flowsRerated;
    private final org.clustersim.topology.Router.LinkLoad load;

    /** With static ECMP routing. */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters) {
        this(topology, kernel, states, counters, false);
    }

    /**
     * @param adaptive route each flow, when it starts, over the equal-cost next hops carrying the
     *                 fewest flows (adaptive routing) instead of by a static hash
     */
    public FlowNetwork(Topology topology, SimKernel kernel, LinkStates states, Counters counters, boolean adaptive) {
        this.load = adaptive ? this::flowsOn : null;
        this.topology = topology;
        this.kernel = kernel;
        this.states = states;
        this.usage = new LinkUsage(topology, counters);
        int n = topology.links().size();
        onLink = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            onLink.add(null);
        }
        linkRate = new double[n];
        componentIndex = new int[n];
        linkSeenIn = new long[n];
        java.util.Arrays.fill(linkSeenIn, -1);
        linkBusySince = new long[n];
    }

    /** One phase in progress: it completes when its last flow has arrived. */
    private final class PhaseRun {
        final Runnable onDone;
        final long extraLatency;
        int pending;
        long lastArrival;

        PhaseRun(int flows, Runnable onDone, long extraLatency, long now) {
            this.pending = flows;
            this.onDone = onDone;
            this.extraLatency = extraLatency;
            this.lastArrival = now;
        }

        void arrived(long at) {
            lastArrival = Math.max(lastArrival, at);
            if (--pending == 0) {
                kernel.schedule(lastArrival + extraLatency, onDone);
            }
        }
    }

    /** A finish time in the heap; stale once the flow's rate changed again (lazy deletion). */
    private record Due(long at, int version, ActiveFlow flow) {
        boolean current() {
            return !flow.done && version == flow.version;
        }
    }

    /** A flow with bytes left to drain. */
    private static final class ActiveFlow {
        final long id;
        final Flow spec;
        final String owner;
        final PhaseRun phase;
        Link[] links;
        long latency;
        double remaining;
        double rate;
        long updatedAt;
        long finishAt = Long.MAX_VALUE;
        int version;
        /** The re-rating pass that last reached this flow (replaces a visited set). */
        long seenIn = -1;
        boolean done;

        ActiveFlow(long id, Flow spec, String owner, PhaseRun phase, double bytes, long now) {
            this.id = id;
            this.spec = spec;
            this.owner = owner;
            this.phase = phase;
            this.remaining = bytes;
            this.updatedAt = now;
        }
    }

    @Override
    public void transfer(String owner, Phase phase, Runnable onDone) {
        long now = kernel.now();
        PhaseRun run = new PhaseRun(phase.flows().size(), onDone, phase.extraLatencyNs(), now);
        List<ActiveFlow> started = new ArrayList<>();
        for (Flow f : phase.flows()) {
            if (f.srcDevice() == f.dstDevice()) {
                run.arrived(now);
                continue;
            }
            Route route = Routes.of(topology, f, states, owner, load);
            if (f.bytes() == 0) {
                run.arrived(now + latencyOf(route.links()));
                continue;
            }
            ActiveFlow a = new ActiveFlow(nextId++, f, owner, run, f.bytes(), now);
            place(a, route);
            for (Link l : a.links) {
                usage.carried(l, f.bytes());
            }
            started.add(a);
        }
        if (!started.isEmpty()) {
            rerate(started, now);
        }
    }

    private long latencyOf(List<Link> links) {
        long latency = 0;
        for (Link l : links) {
            latency += states.latencyNs(l);
        }
        return latency;
    }

    private void place(ActiveFlow a, Route route) {
        a.links = route.links().toArray(new Link[0]);
        a.latency = latencyOf(route.links());
        for (Link l : a.links) {
            List<ActiveFlow> flows = onLink.get(l.id());
            if (flows == null) {
                flows = new ArrayList<>(4);
                onLink.set(l.id(), flows);
            }
            flows.add(a);
        }
    }

    private void unplace(ActiveFlow a) {
        for (Link l : a.links) {
            onLink.get(l.id()).remove(a);
        }
    }

    /**
     * Changes a link's state now (a fault): flows crossing a link that goes down are re-routed
     * with their remaining bytes, and every affected component is re-rated.
     *
     * @throws UnreachableException if a re-routed flow can no longer reach its destination
     */
    @Override
    public void setLinkState(Link link, double capacityFactor, long extraLatencyNs) {
        long now = kernel.now();
        states.setFactor(link.id(), capacityFactor);
        states.setExtraLatencyNs(link.id(), extraLatencyNs);
        List<ActiveFlow> affected = new ArrayList<>(onLinkOrEmpty(link.id()));
        List<ActiveFlow> seeds = new ArrayList<>(affected);
        if (capacityFactor == 0) {
            for (ActiveFlow a : affected) {
                settle(a, now);
                clearRate(a, now);
                for (Link l : a.links) {
                    seeds.addAll(onLink.get(l.id()));
                }
                unplace(a);
                place(a, Routes.of(topology, a.spec, states, a.owner, load));
            }
        }
        if (!seeds.isEmpty()) {
            rerate(seeds, now);
        }
    }

    private int flowsOn(int link) {
        List<ActiveFlow> l = onLink.get(link);
        return l == null ? 0 : l.size();
    }

    private List<ActiveFlow> onLinkOrEmpty(int link) {
        List<ActiveFlow> l = onLink.get(link);
        return l == null ? List.of() : l;
    }

    private void settle(ActiveFlow a, long now) {
        a.remaining = Math.max(0, a.remaining - a.rate * (now - a.updatedAt));
        a.updatedAt = now;
    }

    /** Removes a flow's rate from its links' totals before it leaves them. */
    private void clearRate(ActiveFlow a, long now) {
        if (a.rate > 0) {
            for (Link l : a.links) {
                addLinkRate(l, -a.rate, now);
            }
            a.rate = 0;
        }
    }

    /** Re-rates the components containing {@code seeds} at time {@code now}. */
    private void rerate(List<ActiveFlow> seeds, long now) {
        rerate(seeds, List.of(), now);
    }

    /**
     * Re-rates the components containing {@code seeds} and the flows on {@code seedLinks} at time
     * {@code now}. Finishing flows hand over their links rather than their neighbours: a spine link
     * carries hundreds of flows, and listing them once per finishing flow cost more than the rating.
     */
    private void rerate(List<ActiveFlow> seeds, List<Link> seedLinks, long now) {
        rerates++;
        List<ActiveFlow> flows = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        long pass = rerates;
        ArrayDeque<ActiveFlow> queue = new ArrayDeque<>();
        for (Link l : seedLinks) {
            reach(l, pass, links, queue);
        }
        for (ActiveFlow s : seeds) {
            if (!s.done && s.seenIn != pass) {
                s.seenIn = pass;
                queue.add(s);
            }
        }
        while (!queue.isEmpty()) {
            ActiveFlow a = queue.poll();
            flows.add(a);
            for (Link l : a.links) {
                reach(l, pass, links, queue);
            }
        }
        flowsRerated += flows.size();
        for (ActiveFlow a : flows) {
            settle(a, now);
        }
        double[] newRate = maxMin(flows, links);
        for (int i = 0; i < flows.size(); i++) {
            ActiveFlow a = flows.get(i);
            double r = newRate[i];
            if (r != a.rate) {
                for (Link l : a.links) {
                    addLinkRate(l, r - a.rate, now);
                }
                a.rate = r;
            }
            long finish = r > 0 ? now + (long) Math.ceil(a.remaining / r) : Long.MAX_VALUE;
            if (finish != a.finishAt) {
                a.finishAt = finish;
                a.version++;
                if (finish != Long.MAX_VALUE) {
                    finishing.add(new Due(finish, a.version, a));
                }
            }
        }
        armTimer();
    }

    /** Marks link {@code l} as reached in this pass and queues its flows not reached yet. */
    private void reach(Link l, long pass, List<Link> links, ArrayDeque<ActiveFlow> queue) {
        if (linkSeenIn[l.id()] == pass) {
            return;
        }
        linkSeenIn[l.id()] = pass;
        links.add(l);
        List<ActiveFlow> on = onLink.get(l.id());
        if (on == null) {
            return;
        }
        for (ActiveFlow b : on) {
            if (!b.done && b.seenIn != pass) {
                b.seenIn = pass;
                queue.add(b);
            }
        }
    }

    /**
     * Max-min fair rates (bytes per ns) by progressive filling over a component: the link with
     * the smallest fair share (capacity left over its unfrozen flows; ties to the lower index)
     * freezes its flows at that share, and every other link they cross gives up that much
     * capacity and one flow. Links sit in an indexed heap keyed by share and updated in place
     * (no stale entries); the scratch arrays are reused from one call to the next.
     */
    private double[] maxMin(List<ActiveFlow> flows, List<Link> links) {
        int nl = links.size();
        int nf = flows.size();
        MaxMinScratch m = scratch.sized(nl, nf);
        int[] index = componentIndex;
        for (int i = 0; i < nl; i++) {
            index[links.get(i).id()] = i;
            m.cap[i] = states.capacity(links.get(i)) / 1e9;
            m.unfrozen[i] = 0;
        }
        int hops = 0;
        for (int f = 0; f < nf; f++) {
            hops += flows.get(f).links.length;
        }
        m.hops(hops);
        int k0 = 0;
        for (int f = 0; f < nf; f++) {
            Link[] ls = flows.get(f).links;
            m.flowLinkStart[f] = k0;
            for (Link l : ls) {
                int li = index[l.id()];
                m.flowLink[k0++] = li;
                m.unfrozen[li]++;
            }
            m.frozen[f] = false;
        }
        m.flowLinkStart[nf] = k0;
        // flows of each link in compressed rows: flowsOf[start[li] .. start[li + 1])
        int[] start = m.start;
        start[0] = 0;
        for (int i = 0; i < nl; i++) {
            start[i + 1] = start[i] + m.unfrozen[i];
            m.fill[i] = start[i];
        }
        for (int f = 0; f < nf; f++) {
            for (int k = m.flowLinkStart[f]; k < m.flowLinkStart[f + 1]; k++) {
                int li = m.flowLink[k];
                m.flowsOf[m.fill[li]++] = f;
            }
        }
        double[] rate = new double[nf];
        m.heapSize = 0;
        for (int i = 0; i < nl; i++) {
            m.pos[i] = -1;
            if (m.unfrozen[i] > 0) {
                m.key[i] = m.cap[i] / m.unfrozen[i];
                m.heap[m.heapSize] = i;
                m.pos[i] = m.heapSize++;
            }
        }
        for (int h = m.heapSize / 2 - 1; h >= 0; h--) {
            m.siftDown(h);
        }
        while (m.heapSize > 0) {
            int li = m.pollMin();
            double share = Math.max(0, m.cap[li] / m.unfrozen[li]);
            for (int k = start[li]; k < start[li + 1]; k++) {
                int f = m.flowsOf[k];
                if (m.frozen[f]) {
                    continue;
                }
                m.frozen[f] = true;
                rate[f] = share;
                for (int q = m.flowLinkStart[f]; q < m.flowLinkStart[f + 1]; q++) {
                    int lj = m.flowLink[q];
                    m.cap[lj] -= share;
                    m.unfrozen[lj]--;
                    if (lj != li && m.pos[lj] >= 0) {
                        if (m.unfrozen[lj] == 0) {
                            m.remove(lj);
                        } else {
                            m.key[lj] = Math.max(0, m.cap[lj]) / m.unfrozen[lj];
                            m.siftDown(m.pos[lj]);
                            m.siftUp(m.pos[lj]);
                        }
                    }
                }
            }
        }
        return rate;
    }

    private void addLinkRate(Link l, double delta, long now) {
        int id = l.id();
        double before = linkRate[id];
        double after = before + delta;
        if (Math.abs(after) < 1e-12) {
            after = 0;
        }
        if (before == 0 && after > 0) {
            linkBusySince[id] = now;
        } else if (before > 0 && after == 0) {
            usage.busy(l, now - linkBusySince[id]);
        }
        linkRate[id] = after;
        usage.rateChange(l, now, delta * 1e9);
    }

    private void armTimer() {
        while (!finishing.isEmpty() && !finishing.peek().current()) {
            finishing.poll();
        }
        Due first = finishing.peek();
        if (first != null && first.at < timerAt) {
            timerAt = first.at;
            long at = timerAt;
            kernel.schedule(at, () -> onTimer(at));
        }
    }

    /** Finishes every flow whose last byte has drained by now, then re-rates what they leave behind. */
    private void onTimer(long at) {
        if (at != timerAt) {
            return;
        }
        timerAt = Long.MAX_VALUE;
        long now = kernel.now();
        List<Link> freed = new ArrayList<>();
        while (!finishing.isEmpty() && finishing.peek().at <= now) {
            Due due = finishing.poll();
            if (!due.current()) {
                continue;
            }
            ActiveFlow a = due.flow();
            settle(a, now);
            if (a.remaining > EPSILON_BYTES * Math.max(1, a.spec.bytes())) {
                // rounding left a sliver: finish it at the next nanosecond
                a.finishAt = now + 1;
                a.version++;
                finishing.add(new Due(a.finishAt, a.version, a));
                continue;
            }
            a.done = true;
            clearRate(a, now);
            unplace(a);
            for (Link l : a.links) {
                freed.add(l);
            }
            a.phase.arrived(now + a.latency);
        }
        if (!freed.isEmpty()) {
            rerate(List.of(), freed, now);
        } else {
            armTimer();
        }
    }

    @Override
    public LinkUsage usage() {
        return usage;
    }

    /** How many times components were re-rated. */
    public long rerates() {
        return rerates;
    }

    /** Flows re-rated, summed over all re-ratings. */
    public long flowsRerated() {
        return flowsRerated;
    }

    /** Current total rate on a link, bytes per ns. */
    double linkRate(int linkId) {
        return linkRate[linkId];
    }

    /** Reusable arrays of {@link #maxMin}: per link of the component, per flow, per (flow, link) hop. */
    private static final class MaxMinScratch {
        double[] cap = new double[0];
        double[] key = new double[0];
        int[] unfrozen = new int[0];
        int[] start = new int[1];
        int[] fill = new int[0];
        int[] heap = new int[0];
        int[] pos = new int[0];
        int heapSize;
        int[] flowLinkStart = new int[1];
        boolean[] frozen = new boolean[0];
        int[] flowLink = new int[0];
        int[] flowsOf = new int[0];

        MaxMinScratch sized(int links, int flows) {
            if (cap.length < links) {
                int n = Math.max(links, cap.length * 2);
                cap = new double[n];
                key = new double[n];
                unfrozen = new int[n];
                start = new int[n + 1];
                fill = new int[n];
                heap = new int[n];
                pos = new int[n];
            }
            if (frozen.length < flows) {
                int n = Math.max(flows, frozen.length * 2);
                frozen = new boolean[n];
                flowLinkStart = new int[n + 1];
            }
            return this;
        }

        void hops(int hops) {
            if (flowLink.length < hops) {
                int n = Math.max(hops, flowLink.length * 2);
                flowLink = new int[n];
                flowsOf = new int[n];
            }
        }

        private boolean less(int a, int b) {
            return key[a] != key[b] ? key[a] < key[b] : a < b;
        }

        int pollMin() {
            int top = heap[0];
            remove(top);
            return top;
        }

        void remove(int link) {
            int h = pos[link];
            int last = heap[--heapSize];
            pos[link] = -1;
            if (h < heapSize) {
                heap[h] = last;
                pos[last] = h;
                siftDown(h);
                siftUp(pos[last]);
            }
        }

        void siftUp(int h) {
            int x = heap[h];
            while (h > 0) {
                int parent = (h - 1) >>> 1;
                int p = heap[parent];
                if (!less(x, p)) {
                    break;
                }
                heap[h] = p;
                pos[p] = h;
                h = parent;
            }
            heap[h] = x;
            pos[x] = h;
        }

        void siftDown(int h) {
            int x = heap[h];
            int half = heapSize >>> 1;
            while (h < half) {
                int child = 2 * h + 1;
                int c = heap[child];
                int right = child + 1;
                if (right < heapSize && less(heap[right], c)) {
                    child = right;
                    c = heap[child];
                }
                if (!less(c, x)) {
                    break;
                }
                heap[h] = c;
                pos[c] = h;
                h = child;
            }
            heap[h] = x;
            pos[x] = h;
        }
    }
}
