package org.clustersim.study.workload;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import org.clustersim.core.input.InputException;
import org.clustersim.study.workload.et.EtDef;

/**
 * Reads a set of Chakra execution traces, one file per rank, into {@link RankTrace}s. A file is
 * what Chakra's feeder reads: length-delimited (varint size, then bytes) protobuf messages, a
 * {@code GlobalMetadata} first and then {@code Node}s to the end. Fields and attributes this
 * reader does not know are ignored (schema versions differ in what they carry); a known attribute
 * of the wrong type, a duplicate node id, a dependency on a missing node, a truncated message or a
 * file over the limits is an {@link InputException} naming the file, the node and the attribute.
 */
public final class EtTraceReader {
    /** Largest trace file read, bytes (a trace of one rank of a large job is a few hundred MB). */
    public static final long MAX_FILE_BYTES = 512L << 20;
    /** Most nodes in one file. */
    public static final int MAX_NODES_PER_FILE = 2_000_000;
    /** Most rank files in one set. */
    public static final int MAX_RANKS = 65_536;
    /** Most nodes over all files (the task graph holds one task per node). */
    public static final long MAX_NODES = 20_000_000;

    /** Longest recorded duration of one node, microseconds (keeps simulated times far from overflow). */
    public static final long MAX_DURATION_MICROS = 10_000_000_000L;
    /** Most FLOPs one node may count (a zettaFLOP: far beyond one kernel). */
    public static final double MAX_NUM_OPS = 1e21;

    private static final Pattern RANK = Pattern.compile("(\\d+)(?!.*\\d)");

    private final long maxFileBytes;
    private final long maxNodes;

    /** A reader with the default limits. */
    public EtTraceReader() {
        this(MAX_FILE_BYTES, MAX_NODES);
    }

    /** A reader with its own limits (tests). */
    public EtTraceReader(long maxFileBytes, long maxNodes) {
        this.maxFileBytes = maxFileBytes;
        this.maxNodes = maxNodes;
    }

    /**
     * The trace files {@code spec} names, in rank order: a folder (every regular file in it whose
     * name ends in {@code .et}) or a glob in the last path element ({@code traces/llama.*.et});
     * relative to {@code base}. A file's rank is the last number in its name; ranks must run 0 to
     * n - 1, each once.
     *
     * @param field the scenario field that named it, for errors
     * @throws InputException if nothing matches or the ranks have gaps or repeats
     */
    public static List<Path> files(Path base, String spec, String field) {
        Path given = base.resolve(spec).normalize();
        List<Path> found = new ArrayList<>();
        PathMatcher matcher;
        Path dir;
        if (spec.chars().anyMatch(c -> "*?[{".indexOf(c) >= 0)) {
            dir = given.getParent() == null ? base : given.getParent();
            matcher = FileSystems.getDefault().getPathMatcher("glob:" + given.getFileName());
        } else if (Files.isDirectory(given)) {
            dir = given;
            matcher = p -> p.toString().endsWith(".et");
        } else if (Files.isRegularFile(given)) {
            dir = given.getParent();
            Path only = given.getFileName();
            matcher = only::equals;
        } else {
            throw new InputException(field + ": '" + spec + "' (" + given + ") is neither a folder nor a file; expected "
                    + "a folder of Chakra .et files, one per rank, or a glob such as traces/job.*.et");
        }
        if (!Files.isDirectory(dir)) {
            throw new InputException(field + ": folder " + dir + " of '" + spec + "' does not exist");
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (Files.isRegularFile(p) && matcher.matches(p.getFileName())) {
                    found.add(p);
                }
            }
        } catch (IOException e) {
            throw new InputException(field + ": cannot list " + dir + ": " + e.getMessage());
        }
        if (found.isEmpty()) {
            throw new InputException(field + ": no trace file matches '" + spec + "' in " + dir);
        }
        if (found.size() > MAX_RANKS) {
            throw new InputException(field + ": '" + spec + "' matches " + found.size() + " files; at most "
                    + MAX_RANKS + " ranks are read");
        }
        TreeMap<Integer, Path> byRank = new TreeMap<>();
        for (Path p : found) {
            Matcher m = RANK.matcher(p.getFileName().toString());
            int rank = -1;
            if (m.find()) {
                try {
                    rank = Integer.parseInt(m.group(1));
                } catch (NumberFormatException e) {
                    rank = -1;
                }
            }
            if (rank < 0 && found.size() == 1) {
                rank = 0;
            }
            if (rank < 0) {
                throw new InputException(p + ": no rank in the file name; expected one number per file, as in job.3.et");
            }
            Path other = byRank.put(rank, p);
            if (other != null) {
                throw new InputException(field + ": files " + other.getFileName() + " and " + p.getFileName()
                        + " both name rank " + rank + "; expected one file per rank");
            }
        }
        if (byRank.lastKey() != byRank.size() - 1) {
            int missing = 0;
            while (byRank.containsKey(missing)) {
                missing++;
            }
            throw new InputException(field + ": no trace file for rank " + missing + " in " + dir
                    + " (found ranks " + byRank.firstKey() + " to " + byRank.lastKey() + "); expected ranks 0 to "
                    + (byRank.size() - 1) + ", one file each");
        }
        return List.copyOf(byRank.values());
    }

    /** Reads every file of {@code files}, file i being rank i. */
    public List<RankTrace> read(List<Path> files) {
        List<RankTrace> out = new ArrayList<>(files.size());
        long total = 0;
        for (int r = 0; r < files.size(); r++) {
            RankTrace t = read(files.get(r), r);
            total += t.nodes().size();
            if (total > maxNodes) {
                throw new InputException(files.get(r) + ": the traces hold more than " + maxNodes
                        + " nodes together; that is the most one run reads");
            }
            out.add(t);
        }
        return out;
    }

    /** Reads one rank's file. */
    public RankTrace read(Path file, int rank) {
        long size;
        try {
            if (!Files.isRegularFile(file)) {
                throw new InputException(file + ": not a regular file; expected a Chakra execution trace");
            }
            size = Files.size(file);
        } catch (IOException e) {
            throw new InputException(file + ": cannot read: " + e.getMessage());
        }
        if (size > maxFileBytes) {
            throw new InputException(file + ": " + size + " bytes; a trace file is read up to " + maxFileBytes
                    + " bytes");
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            return parse(file, rank, in, size);
        } catch (IOException e) {
            throw new InputException(file + ": cannot read: " + e.getMessage());
        }
    }

    private RankTrace parse(Path file, int rank, InputStream raw, long size) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(raw);
        in.setSizeLimit(Integer.MAX_VALUE);
        String version = "";
        List<EtNode> nodes = new ArrayList<>();
        Set<Long> ids = new HashSet<>();
        boolean first = true;
        long lastId = -1;
        while (!in.isAtEnd()) {
            int length;
            byte[] bytes;
            try {
                length = in.readRawVarint32();
                if (length < 0 || length > size - in.getTotalBytesRead()) {
                    throw new InvalidProtocolBufferException("a message of " + Integer.toUnsignedString(length)
                            + " bytes, more than the file holds");
                }
                bytes = in.readRawBytes(length);
            } catch (InvalidProtocolBufferException e) {
                throw new InputException(file + ": " + where(first, lastId) + ": truncated or not a length-delimited "
                        + "message (" + e.getMessage() + "); expected a Chakra execution trace (GlobalMetadata, then Nodes)");
            }
            try {
                if (first) {
                    first = false;
                    EtDef.GlobalMetadata meta = EtDef.GlobalMetadata.parseFrom(bytes);
                    version = meta.getVersion();
                    continue;
                }
                EtDef.Node n = EtDef.Node.parseFrom(bytes);
                if (nodes.size() >= MAX_NODES_PER_FILE) {
                    throw new InputException(file + ": more than " + MAX_NODES_PER_FILE
                            + " nodes; that is the most one file may hold");
                }
                EtNode node = node(file, n);
                if (!ids.add(node.id())) {
                    throw new InputException(file + ": node " + node.id() + " (" + node.name()
                            + "): id appears twice; expected each node id once per file");
                }
                lastId = node.id();
                nodes.add(node);
            } catch (InvalidProtocolBufferException e) {
                throw new InputException(file + ": " + where(false, lastId) + ": not a Chakra "
                        + (first ? "GlobalMetadata" : "Node") + " message (" + e.getMessage() + ")");
            }
        }
        for (EtNode n : nodes) {
            dependencies(file, n, n.ctrlDeps(), "ctrl_deps", ids);
            dependencies(file, n, n.dataDeps(), "data_deps", ids);
        }
        return new RankTrace(file, rank, version, nodes);
    }

    private static String where(boolean metadata, long lastId) {
        if (metadata) {
            return "the GlobalMetadata message";
        }
        return lastId < 0 ? "the first node" : "the message after node " + lastId;
    }

    private static void dependencies(Path file, EtNode n, long[] deps, String attribute, Set<Long> ids) {
        for (long d : deps) {
            if (!ids.contains(d)) {
                throw new InputException(file + ": node " + n.id() + " (" + n.name() + "): " + attribute
                        + " names node " + d + ", which is not in the file; expected ids of nodes of the same rank");
            }
            if (d == n.id()) {
                throw new InputException(file + ": node " + n.id() + " (" + n.name() + "): " + attribute
                        + " names the node itself");
            }
        }
    }

    private static EtNode node(Path file, EtDef.Node n) {
        EtNode.Kind kind = switch (n.getTypeValue()) {
            case EtDef.NodeType.COMP_NODE_VALUE -> EtNode.Kind.COMPUTE;
            case EtDef.NodeType.COMM_COLL_NODE_VALUE -> EtNode.Kind.COLLECTIVE;
            case EtDef.NodeType.COMM_SEND_NODE_VALUE -> EtNode.Kind.SEND;
            case EtDef.NodeType.COMM_RECV_NODE_VALUE -> EtNode.Kind.RECV;
            case EtDef.NodeType.MEM_LOAD_NODE_VALUE, EtDef.NodeType.MEM_STORE_NODE_VALUE -> EtNode.Kind.MEMORY;
            default -> EtNode.Kind.OTHER;
        };
        double numOps = 0;
        int commType = -1;
        long commBytes = 0;
        int src = -1;
        int dst = -1;
        long tag = 0;
        String pg = "";
        boolean cpu = false;
        String stream = "";
        for (EtDef.AttributeProto a : n.getAttrList()) {
            AttributeValue v = new AttributeValue(file, n, a);
            switch (a.getName()) {
                case "num_ops" -> numOps = v.number(0, MAX_NUM_OPS);
                case "comm_type" -> commType = (int) v.integer(0, 1000);
                case "comm_size" -> commBytes = v.integer(0, Long.MAX_VALUE);
                case "comm_src" -> src = (int) v.integer(0, MAX_RANKS - 1);
                case "comm_dst" -> dst = (int) v.integer(0, MAX_RANKS - 1);
                case "comm_tag" -> tag = v.integer(Long.MIN_VALUE, Long.MAX_VALUE);
                case "pg_name" -> pg = v.text();
                case "is_cpu_op" -> cpu = v.bool();
                // clustersim's writer names the simulated stream; other values (a number) are not ours: ignored
                case "stream" -> stream = a.getValueCase() == EtDef.AttributeProto.ValueCase.STRING_VAL
                        ? a.getStringVal() : "";
                default -> {
                    // other attributes (tensor_size, op_schema, ...) do not enter the simulation
                }
            }
        }
        long duration = n.getDurationMicros();
        if (duration < 0 || duration > MAX_DURATION_MICROS) {
            throw new InputException(file + ": node " + n.getId() + " (" + n.getName() + "): duration_micros "
                    + Long.toUnsignedString(duration) + " is out of range; expected at most " + MAX_DURATION_MICROS
                    + " (about 2.8 hours)");
        }
        return new EtNode(n.getId(), n.getName(), kind, ids(n.getCtrlDepsList()),
                ids(n.getDataDepsList()), duration, numOps, commType, commBytes, src, dst,
                tag, pg, cpu, stream);
    }

    private static long[] ids(List<Long> ids) {
        long[] out = new long[ids.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = ids.get(i);
        }
        return out;
    }
}
