package org.clustersim.core.trace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;

import org.clustersim.core.engine.Timeline;

/**
 * Writes a {@link Timeline} in Perfetto's native trace format: a {@code Trace} of
 * {@code TracePacket}s carrying {@code TrackDescriptor}s and {@code TrackEvent}s
 * (protos/perfetto/trace/ in github.com/google/perfetto), which ui.perfetto.dev and
 * trace_processor open without converting. The content is {@link TraceContent}'s, as in the
 * JSON trace: a process track per server, a thread track per device stream (ordered as the JSON
 * trace orders them), a slice per task and stream (a begin and an end event), flows from a
 * transfer's sender to its receiver, counter tracks under a {@code counters} process, and
 * markers as instant events on a global {@code markers} track.
 *
 * <p>Compact by construction: every packet is on one sequence whose incremental state holds the
 * interned event names and categories, so a name is written once and then referred to by a
 * small id; timestamps are nanoseconds as varints. Packets are written as they come, field by
 * field with {@link CodedOutputStream} (sizes computed up front), so the trace is never held in
 * memory.
 */
public final class PerfettoTraceWriter {
    // Trace
    private static final int TRACE_PACKET = 1;
    // TracePacket
    private static final int TIMESTAMP = 8;
    private static final int SEQUENCE_ID = 10;
    private static final int TRACK_EVENT = 11;
    private static final int INTERNED_DATA = 12;
    private static final int SEQUENCE_FLAGS = 13;
    private static final int TRACK_DESCRIPTOR = 60;
    private static final int FIRST_PACKET_ON_SEQUENCE = 87;
    private static final int SEQ_INCREMENTAL_STATE_CLEARED = 1;
    private static final int SEQ_NEEDS_INCREMENTAL_STATE = 2;
    // InternedData, EventCategory / EventName
    private static final int EVENT_CATEGORIES = 1;
    private static final int EVENT_NAMES = 2;
    private static final int IID = 1;
    private static final int INTERNED_NAME = 2;
    // TrackEvent
    private static final int CATEGORY_IIDS = 3;
    private static final int TYPE = 9;
    private static final int NAME_IID = 10;
    private static final int TRACK_UUID = 11;
    private static final int DOUBLE_COUNTER_VALUE = 44;
    private static final int FLOW_IDS = 47;
    private static final int TERMINATING_FLOW_IDS = 48;
    private static final int TYPE_SLICE_BEGIN = 1;
    private static final int TYPE_SLICE_END = 2;
    private static final int TYPE_INSTANT = 3;
    private static final int TYPE_COUNTER = 4;
    // TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor
    private static final int UUID = 1;
    private static final int NAME = 2;
    private static final int PROCESS = 3;
    private static final int THREAD = 4;
    private static final int PARENT_UUID = 5;
    private static final int COUNTER = 8;
    private static final int SIBLING_ORDER_RANK = 12;
    private static final int PROCESS_ORDERING = 19;
    private static final int THREAD_ORDERING = 20;
    private static final int PID = 1;
    private static final int PROCESS_NAME = 6;
    private static final int TID = 2;
    private static final int THREAD_NAME = 5;
    private static final int UNIT_NAME = 6;

    /** The one sequence every packet is on. */
    private static final int SEQUENCE = 1;
    /**
     * Track uuids: a thread track's is its tid (stream id + 1), small, as every slice's begin and
     * end carry it; processes, counters and the markers take uuids above 2^40.
     */
    private static final long PROCESS_TRACKS = 1L << 40;
    private static final long COUNTER_TRACKS = 2L << 40;
    private static final long MARKER_TRACK = 3L << 40;

    private PerfettoTraceWriter() {
    }

    /**
     * Writes the trace.
     *
     * @param timeline the run to draw
     * @param out      destination; not closed
     * @param markers  moments drawn across the trace (faults starting and ending)
     */
    public static void write(Timeline timeline, OutputStream out, List<ChromeTraceWriter.Marker> markers)
            throws IOException {
        CodedOutputStream o = CodedOutputStream.newInstance(out, 1 << 16);
        Packets sink = new Packets(o);
        sink.root();
        TraceContent.walk(timeline, markers, sink);
        o.flush();
    }

    static long processTrack(int pid) {
        return PROCESS_TRACKS + pid;
    }

    /** Thread ids are unique over the whole trace (stream ids), so the tid alone names the track. */
    static long threadTrack(int tid) {
        return tid;
    }

    static long counterTrack(int track) {
        return COUNTER_TRACKS + track;
    }

    /** Turns {@link TraceContent}'s parts into packets. */
    private static final class Packets implements TraceContent.Sink {
        private final CodedOutputStream o;
        private final Map<String, Long> names = new HashMap<>();
        private final Map<String, Long> categories = new HashMap<>();
        private final ByteArrayOutputStream scratch = new ByteArrayOutputStream(256);
        private int lastCounterTrack = -1;
        private boolean markerTrack;

        Packets(CodedOutputStream o) {
            this.o = o;
        }

        /** The first packet: clears the sequence's state and asks for tracks in the given order. */
        void root() throws IOException {
            byte[] d = message(c -> {
                c.writeUInt64(UUID, 0);
                c.writeEnum(PROCESS_ORDERING, 1);
                c.writeEnum(THREAD_ORDERING, 1);
            });
            int size = CodedOutputStream.computeUInt32Size(SEQUENCE_ID, SEQUENCE)
                    + CodedOutputStream.computeUInt32Size(SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED)
                    + CodedOutputStream.computeBoolSize(FIRST_PACKET_ON_SEQUENCE, true)
                    + CodedOutputStream.computeByteArraySize(TRACK_DESCRIPTOR, d);
            o.writeTag(TRACE_PACKET, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(size);
            o.writeUInt32(SEQUENCE_ID, SEQUENCE);
            o.writeUInt32(SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
            o.writeBool(FIRST_PACKET_ON_SEQUENCE, true);
            o.writeByteArray(TRACK_DESCRIPTOR, d);
        }

        @Override
        public void process(int pid, String name, int sortIndex) throws IOException {
            byte[] p = message(c -> {
                c.writeInt32(PID, pid);
                c.writeString(PROCESS_NAME, name);
            });
            descriptor(message(c -> {
                c.writeUInt64(UUID, processTrack(pid));
                c.writeByteArray(PROCESS, p);
                c.writeInt32(SIBLING_ORDER_RANK, sortIndex);
            }));
        }

        @Override
        public void thread(int pid, int tid, String name, int sortIndex) throws IOException {
            byte[] t = message(c -> {
                c.writeInt32(PID, pid);
                c.writeInt64(TID, tid);
                c.writeString(THREAD_NAME, name);
            });
            descriptor(message(c -> {
                // no parent: trace_processor puts a thread track under its process by the pid
                c.writeUInt64(UUID, threadTrack(tid));
                c.writeByteArray(THREAD, t);
                c.writeInt32(SIBLING_ORDER_RANK, sortIndex);
            }));
        }

        @Override
        public void slice(TraceContent.Slice s) throws IOException {
            long track = threadTrack(s.tid());
            int flowField = switch (s.flow()) {
                case SENDER -> FLOW_IDS;
                case RECEIVER -> TERMINATING_FLOW_IDS;
                case NONE -> 0;
            };
            event(s.startNs(), TYPE_SLICE_BEGIN, track, s.task().name(), s.task().category(), flowField, s.taskId());
            event(s.endNs(), TYPE_SLICE_END, track, null, null, 0, 0);
        }

        @Override
        public void counter(int pid, int track, String name, String unit, long atNs, double value)
                throws IOException {
            long uuid = counterTrack(track);
            if (track != lastCounterTrack) {
                lastCounterTrack = track;
                byte[] c = message(m -> m.writeString(UNIT_NAME, unit));
                descriptor(message(m -> {
                    m.writeUInt64(UUID, uuid);
                    m.writeUInt64(PARENT_UUID, processTrack(pid));
                    m.writeString(NAME, name);
                    m.writeByteArray(COUNTER, c);
                }));
            }
            int te = CodedOutputStream.computeEnumSize(TYPE, TYPE_COUNTER)
                    + CodedOutputStream.computeUInt64Size(TRACK_UUID, uuid)
                    + CodedOutputStream.computeDoubleSize(DOUBLE_COUNTER_VALUE, value);
            int size = CodedOutputStream.computeUInt64Size(TIMESTAMP, atNs)
                    + CodedOutputStream.computeUInt32Size(SEQUENCE_ID, SEQUENCE)
                    + CodedOutputStream.computeTagSize(TRACK_EVENT) + CodedOutputStream.computeUInt32SizeNoTag(te) + te;
            o.writeTag(TRACE_PACKET, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(size);
            o.writeUInt64(TIMESTAMP, atNs);
            o.writeUInt32(SEQUENCE_ID, SEQUENCE);
            o.writeTag(TRACK_EVENT, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(te);
            o.writeEnum(TYPE, TYPE_COUNTER);
            o.writeUInt64(TRACK_UUID, uuid);
            o.writeDouble(DOUBLE_COUNTER_VALUE, value);
        }

        @Override
        public void marker(ChromeTraceWriter.Marker m) throws IOException {
            if (!markerTrack) {
                markerTrack = true;
                descriptor(message(c -> {
                    c.writeUInt64(UUID, MARKER_TRACK);
                    c.writeString(NAME, "markers");
                }));
            }
            event(m.atNs(), TYPE_INSTANT, MARKER_TRACK, m.name(), "marker", 0, 0);
        }

        /**
         * One track event; {@code name} null for a slice's end. A name or category seen for the
         * first time is interned in the same packet.
         */
        private void event(long ts, int type, long track, String name, String category, int flowField, long flowId)
                throws IOException {
            long nameIid = 0;
            long catIid = 0;
            String newName = null;
            String newCategory = null;
            if (name != null) {
                Long n = names.get(name);
                if (n == null) {
                    n = names.size() + 1L;
                    names.put(name, n);
                    newName = name;
                }
                nameIid = n;
                Long c = categories.get(category);
                if (c == null) {
                    c = categories.size() + 1L;
                    categories.put(category, c);
                    newCategory = category;
                }
                catIid = c;
            }
            int te = CodedOutputStream.computeEnumSize(TYPE, type) + CodedOutputStream.computeUInt64Size(TRACK_UUID, track);
            if (name != null) {
                te += CodedOutputStream.computeUInt64Size(CATEGORY_IIDS, catIid)
                        + CodedOutputStream.computeUInt64Size(NAME_IID, nameIid);
            }
            if (flowField != 0) {
                te += CodedOutputStream.computeFixed64Size(flowField, flowId);
            }
            int interned = 0;
            int nameEntry = newName == null ? 0 : entrySize(nameIid, newName);
            int catEntry = newCategory == null ? 0 : entrySize(catIid, newCategory);
            if (newName != null) {
                interned += CodedOutputStream.computeTagSize(EVENT_NAMES)
                        + CodedOutputStream.computeUInt32SizeNoTag(nameEntry) + nameEntry;
            }
            if (newCategory != null) {
                interned += CodedOutputStream.computeTagSize(EVENT_CATEGORIES)
                        + CodedOutputStream.computeUInt32SizeNoTag(catEntry) + catEntry;
            }
            // only events that refer to interned names need the sequence's incremental state
            int size = CodedOutputStream.computeUInt64Size(TIMESTAMP, ts)
                    + CodedOutputStream.computeUInt32Size(SEQUENCE_ID, SEQUENCE)
                    + (name == null ? 0 : CodedOutputStream.computeUInt32Size(SEQUENCE_FLAGS,
                    SEQ_NEEDS_INCREMENTAL_STATE))
                    + CodedOutputStream.computeTagSize(TRACK_EVENT) + CodedOutputStream.computeUInt32SizeNoTag(te) + te;
            if (interned > 0) {
                size += CodedOutputStream.computeTagSize(INTERNED_DATA)
                        + CodedOutputStream.computeUInt32SizeNoTag(interned) + interned;
            }
            o.writeTag(TRACE_PACKET, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(size);
            o.writeUInt64(TIMESTAMP, ts);
            o.writeUInt32(SEQUENCE_ID, SEQUENCE);
            if (name != null) {
                o.writeUInt32(SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
            }
            if (interned > 0) {
                o.writeTag(INTERNED_DATA, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                o.writeUInt32NoTag(interned);
                if (newCategory != null) {
                    entry(EVENT_CATEGORIES, catEntry, catIid, newCategory);
                }
                if (newName != null) {
                    entry(EVENT_NAMES, nameEntry, nameIid, newName);
                }
            }
            o.writeTag(TRACK_EVENT, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(te);
            if (name != null) {
                o.writeUInt64(CATEGORY_IIDS, catIid);
            }
            o.writeEnum(TYPE, type);
            if (name != null) {
                o.writeUInt64(NAME_IID, nameIid);
            }
            o.writeUInt64(TRACK_UUID, track);
            if (flowField != 0) {
                o.writeFixed64(flowField, flowId);
            }
        }

        private static int entrySize(long iid, String name) {
            return CodedOutputStream.computeUInt64Size(IID, iid) + CodedOutputStream.computeStringSize(INTERNED_NAME,
                    name);
        }

        private void entry(int field, int size, long iid, String name) throws IOException {
            o.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(size);
            o.writeUInt64(IID, iid);
            o.writeString(INTERNED_NAME, name);
        }

        /** A packet carrying one track descriptor. */
        private void descriptor(byte[] d) throws IOException {
            int size = CodedOutputStream.computeUInt32Size(SEQUENCE_ID, SEQUENCE)
                    + CodedOutputStream.computeByteArraySize(TRACK_DESCRIPTOR, d);
            o.writeTag(TRACE_PACKET, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            o.writeUInt32NoTag(size);
            o.writeUInt32(SEQUENCE_ID, SEQUENCE);
            o.writeByteArray(TRACK_DESCRIPTOR, d);
        }

        /** A small message's bytes (descriptors: a few per stream, not per event). */
        private byte[] message(Fields fields) throws IOException {
            scratch.reset();
            CodedOutputStream c = CodedOutputStream.newInstance(scratch, 256);
            fields.write(c);
            c.flush();
            return scratch.toByteArray();
        }
    }

    /** Writes a message's fields. */
    private interface Fields {
        void write(CodedOutputStream c) throws IOException;
    }
}
