package org.clustersim.core.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Counters;
import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.Task;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.core.trace.perfetto.Trace;
import org.clustersim.core.trace.perfetto.TracePacket;
import org.clustersim.core.trace.perfetto.TrackDescriptor;
import org.clustersim.core.trace.perfetto.TrackEvent;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.junit.jupiter.api.Test;

/**
 * Decodes the Perfetto trace with classes generated from Perfetto's trace protos (a vendored
 * subset, src/test/proto) and checks it against the timeline: every slice (track, name,
 * category, start, end), the flows of transfers, the counter samples, the markers, the
 * interning rules of the sequence, and the size against the JSON trace.
 */
class PerfettoTraceWriterTest {

    /** A decoded slice: where, what, when. */
    private record Slice(String thread, String name, String category, long start, long end, List<Long> flowOut,
                         List<Long> flowIn) {
    }

    /** What a decoder sees of a whole trace. */
    private static final class Decoded {
        final Map<Long, TrackDescriptor> tracks = new HashMap<>();
        final Map<Long, String> names = new HashMap<>();
        final Map<Long, String> categories = new HashMap<>();
        final Map<String, List<Slice>> slicesByThread = new LinkedHashMap<>();
        final Map<String, List<String>> counters = new LinkedHashMap<>();
        final List<String> instants = new ArrayList<>();
        final List<String> processes = new ArrayList<>();
        TrackDescriptor root;
    }

    /** Two servers, pipeline-style compute on each with a send between, a two-way exchange, a marker. */
    private static Timeline timeline() {
        TaskGraph.Builder b = TaskGraph.builder();
        b.device("node0.gpu0", 0);
        b.device("node0.gpu1", 0);
        b.device("node1.gpu0", 1);
        int c0 = b.stream(0, "compute", StreamKind.COMPUTE);
        int c1 = b.stream(1, "compute", StreamKind.COMPUTE);
        int c2 = b.stream(2, "compute", StreamKind.COMPUTE);
        int send = b.stream(0, "pp-send", StreamKind.COMMUNICATION);
        int recv = b.stream(2, "pp-recv", StreamKind.COMMUNICATION);
        int dp0 = b.stream(0, "dp", StreamKind.COMMUNICATION);
        int dp1 = b.stream(1, "dp", StreamKind.COMMUNICATION);
        int prev = -1;
        for (int mb = 0; mb < 6; mb++) {
            int f = prev < 0 ? b.compute("F mb" + mb, "forward", c0, 1500 + mb, 3e9)
                    : b.compute("F mb" + mb, "forward", c0, 1500 + mb, 3e9, prev);
            int s = b.communicate("act mb" + mb, "pp-p2p", new int[] {send, recv},
                    Work.Communication.pointToPoint(0, 2, 100_000), f);
            b.compute("F mb" + mb, "forward", c2, 1200, 2e9, s);
            b.compute("B mb" + mb, "backward", c1, 900, 1e9);
            prev = f;
        }
        b.communicate("grad", "dp-comm", new int[] {dp0, dp1}, Work.Communication.pointToPoint(0, 1, 50_000));
        var topo = new SwitchedClusterSpec("t", AcceleratorSpec.H100_SXM, 2, 2, 100e9, 0, 50e9, 0, 0).build();
        return Simulation.run(b.build(), topo);
    }

    private static byte[] perfetto(Timeline t, List<ChromeTraceWriter.Marker> markers) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PerfettoTraceWriter.write(t, out, markers);
        return out.toByteArray();
    }

    /** Replays the packets as trace_processor would, failing on anything used before it is defined. */
    private static Decoded decode(byte[] bytes) throws IOException {
        Trace trace = Trace.parseFrom(bytes);
        Decoded d = new Decoded();
        Map<Long, Deque<TrackEvent>> open = new HashMap<>();
        Map<Long, Deque<Long>> openAt = new HashMap<>();
        assertTrue(trace.getPacketCount() > 0);
        TracePacket first = trace.getPacket(0);
        assertEquals(TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE, first.getSequenceFlags());
        assertTrue(first.getFirstPacketOnSequence());
        for (TracePacket p : trace.getPacketList()) {
            assertEquals(1, p.getTrustedPacketSequenceId(), "one sequence");
            p.getInternedData().getEventNamesList().forEach(n -> d.names.put(n.getIid(), n.getName()));
            p.getInternedData().getEventCategoriesList().forEach(c -> d.categories.put(c.getIid(), c.getName()));
            if (p.hasTrackDescriptor()) {
                TrackDescriptor td = p.getTrackDescriptor();
                if (td.getUuid() == 0) {
                    d.root = td;
                    continue;
                }
                assertTrue(d.tracks.put(td.getUuid(), td) == null, "track " + td.getUuid() + " described twice");
                if (td.hasProcess()) {
                    d.processes.add(td.getProcess().getProcessName());
                }
                if (td.hasParentUuid()) {
                    assertTrue(d.tracks.containsKey(td.getParentUuid()), "parent described first");
                }
            }
            if (!p.hasTrackEvent()) {
                continue;
            }
            TrackEvent e = p.getTrackEvent();
            TrackDescriptor track = d.tracks.get(e.getTrackUuid());
            assertNotNull(track, "event on an undescribed track " + e.getTrackUuid());
            long ts = p.getTimestamp();
            switch (e.getType()) {
                case TYPE_SLICE_BEGIN -> {
                    assertEquals(TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE, p.getSequenceFlags());
                    assertTrue(d.names.containsKey(e.getNameIid()), "name interned before use");
                    assertTrue(d.categories.containsKey(e.getCategoryIids(0)), "category interned before use");
                    open.computeIfAbsent(e.getTrackUuid(), k -> new ArrayDeque<>()).push(e);
                    openAt.computeIfAbsent(e.getTrackUuid(), k -> new ArrayDeque<>()).push(ts);
                }
                case TYPE_SLICE_END -> {
                    TrackEvent begin = open.get(e.getTrackUuid()).pop();
                    long start = openAt.get(e.getTrackUuid()).pop();
                    String thread = track.getThread().getThreadName();
                    int pid = track.getThread().getPid();
                    assertTrue(d.tracks.values().stream().anyMatch(x -> x.hasProcess()
                            && x.getProcess().getPid() == pid), "the thread's process is described");
                    d.slicesByThread.computeIfAbsent(thread, k -> new ArrayList<>()).add(new Slice(thread,
                            d.names.get(begin.getNameIid()), d.categories.get(begin.getCategoryIids(0)), start, ts,
                            begin.getFlowIdsList(), begin.getTerminatingFlowIdsList()));
                }
                case TYPE_COUNTER -> d.counters.computeIfAbsent(track.getName() + " (" + track.getCounter()
                        .getUnitName() + ")", k -> new ArrayList<>()).add(ts + "=" + e.getDoubleCounterValue());
                case TYPE_INSTANT -> d.instants.add(track.getName() + ": " + d.names.get(e.getNameIid()) + "@" + ts);
                default -> throw new AssertionError("unexpected event " + e);
            }
        }
        open.values().forEach(q -> assertTrue(q.isEmpty(), "every slice ends"));
        return d;
    }

    @Test
    void everySliceMatchesTheTimeline() throws IOException {
        Timeline t = timeline();
        Decoded d = decode(perfetto(t, List.of()));
        TaskGraph g = t.graph();
        int slices = 0;
        for (Stream s : g.streams()) {
            DeviceInfo dev = g.devices().get(s.device());
            String thread = dev.name() + " " + s.name();
            List<Slice> got = d.slicesByThread.getOrDefault(thread, List.of());
            assertEquals(g.streamLength(s.id()), got.size(), thread);
            for (int i = 0; i < got.size(); i++) {
                int id = g.streamTask(s.id(), i);
                Task task = g.task(id);
                Slice sl = got.get(i);
                assertEquals(task.name(), sl.name(), thread);
                assertEquals(task.category(), sl.category(), thread);
                assertEquals(t.start(id), sl.start(), thread + " " + task.name());
                assertEquals(t.end(id) - t.start(id), sl.end() - sl.start(), thread + " " + task.name());
                slices++;
            }
        }
        assertEquals(6 * 3 + 6 * 2 + 2, slices, "forwards on two GPUs, backwards, sends on both ends, the exchange");
        assertEquals(List.of("node 0", "node 1"), d.processes.subList(0, 2));
        assertEquals(TrackDescriptor.ThreadOrdering.THREAD_ORDERING_EXPLICIT, d.root.getThreadOrdering(),
                "threads in the JSON trace's order");
    }

    @Test
    void transfersAreFlowsFromSenderToReceiver() throws IOException {
        Timeline t = timeline();
        Decoded d = decode(perfetto(t, List.of()));
        List<Slice> sends = d.slicesByThread.get("node0.gpu0 pp-send");
        List<Slice> recvs = d.slicesByThread.get("node1.gpu0 pp-recv");
        assertEquals(6, sends.size());
        for (int i = 0; i < sends.size(); i++) {
            assertEquals(1, sends.get(i).flowOut().size());
            assertEquals(sends.get(i).flowOut(), recvs.get(i).flowIn(), "the receiver ends the sender's flow");
            assertTrue(recvs.get(i).flowOut().isEmpty() && sends.get(i).flowIn().isEmpty());
        }
        // the exchange inside one server has a flow only when it is one-way: it is drawn, without an arrow
        // into compute slices
        for (Slice s : d.slicesByThread.get("node0.gpu0 compute")) {
            assertTrue(s.flowOut().isEmpty() && s.flowIn().isEmpty());
        }
    }

    @Test
    void countersAndMarkersMatchTheTimeline() throws IOException {
        Timeline t = timeline();
        List<ChromeTraceWriter.Marker> markers = List.of(new ChromeTraceWriter.Marker(2000, "fault: link x down"),
                new ChromeTraceWriter.Marker(5000, "fault: link x up"));
        Decoded d = decode(perfetto(t, markers));
        Counters c = t.counters();
        assertTrue(c.trackCount() > 0);
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (Counters.Series s : c.allSeries()) {
            List<String> samples = expected.computeIfAbsent(c.name(s.track()) + " (" + c.unit(s.track()) + ")",
                    k -> new ArrayList<>());
            for (int i = 0; i < s.timesNs().length; i++) {
                samples.add(s.timesNs()[i] + "=" + s.values()[i]);
            }
        }
        assertEquals(expected, d.counters);
        assertEquals(List.of("markers: fault: link x down@2000", "markers: fault: link x up@5000"), d.instants);
    }

    @Test
    void namesAreInternedSoTheTraceIsAFractionOfTheJson() throws IOException {
        Timeline t = timeline();
        byte[] pb = perfetto(t, List.of());
        Trace trace = Trace.parseFrom(pb);
        long interned = trace.getPacketList().stream().mapToLong(p -> p.getInternedData().getEventNamesCount())
                .sum();
        // distinct names: F mb0..5, act mb0..5, B mb0..5, grad
        assertEquals(6 * 3 + 1, interned, "each name written once");
        ByteArrayOutputStream json = new ByteArrayOutputStream();
        ChromeTraceWriter.write(t, json, Map.of());
        assertTrue(pb.length * 2 < json.size(), pb.length + " bytes against " + json.size() + " of JSON");
    }
}
