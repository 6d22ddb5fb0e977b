package org.clustersim.study.calibration;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.clustersim.core.input.InputError;

/**
 * The text an nccl-tests program ({@code all_reduce_perf} and its siblings) prints, as written by
 * its src/common.cu and src/util.cu:
 * <pre>
 * # nccl-tests version 2.19.6 nccl-headers=22703 nccl-library=22703     (2.17 and later)
 * # Collective test starting: all_reduce_perf                          (2.17 and later)
 * # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20 ...
 * #
 * # Using devices
 * #  Rank  0 Group  0 Pid   4242 on   dgx-h100 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
 * ...                                                  (older versions: no Group, [0x18])
 * #
 * #                                                              out-of-place                       in-place
 * #       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
 * #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
 *            8             2     float     sum      -1    13.67    0.00    0.00       0    13.67    0.00    0.00       0
 * ...
 * # Out of bounds values : 0 OK
 * # Avg bus bandwidth    : 219.4
 * </pre>
 * Columns are found by name in the column header, so older layouts (no root column, an
 * {@code error} column) and newer ones (per-iteration statistics, timestamps) read the same;
 * the out-of-place {@code time}, {@code algbw} and {@code busbw} (the first of each) are used.
 * Ranks and hosts come from the {@code Rank} lines. Other {@code #} lines and NCCL's own
 * {@code NCCL INFO} / {@code NCCL WARN} debug lines are skipped; any other line is an error.
 *
 * <p>Which operation the file measured is taken, in this order, from the program name in its
 * {@code # Collective test starting:} line, from {@code --nccl-op}, from an operation name in the
 * file name ({@code all_reduce_perf.txt}, {@code allgather-8xh100.log}), and finally from its
 * columns when only one operation fits them. Whatever the source, the columns must agree: the
 * redop column ({@code none} for operations that reduce nothing), the root column (-1 for
 * operations without a root) and busbw / algbw, which nccl-tests computes with the operation's
 * bus factor over the number of ranks.
 *
 * @param source  the file as the user named it
 * @param op      the operation
 * @param opFrom  where the operation was read from, for the report
 * @param ranks   the number of ranks
 * @param hosts   the distinct host names of the ranks, in order of appearance
 * @param rows    the result rows, in file order
 */
public record NcclTestsOutput(String source, NcclOp op, String opFrom, int ranks, List<String> hosts, List<Row> rows) {
    /**
     * One result row (out-of-place figures).
     *
     * @param line    its line in the file
     * @param bytes   the size column
     * @param timeUs  out-of-place time, microseconds
     * @param algbw   out-of-place algorithm bandwidth, GB/s
     * @param busbw   out-of-place bus bandwidth, GB/s
     */
    public record Row(int line, long bytes, double timeUs, double algbw, double busbw) {
    }

    private static final Pattern RANK = Pattern.compile(
            "Rank\\s+(\\d+)\\s+(?:Group\\s+\\d+\\s+)?Pid\\s+\\d+\\s+on\\s+(\\S+)\\s+device\\s+\\d+(\\s.*)?");
    private static final String STARTING = "Collective test starting:";
    private static final String FROM_HEADER = "its header";
    private static final String ROW_SHAPE = "a result row (size count type redop root time algbw busbw ...)";

    /** A data row with the text of the cells the checks need. */
    private record Raw(Row row, String algbwText, String busbwText, String redop, Integer root) {
    }

    /**
     * Reads one file.
     *
     * @param flag the operation given with {@code --nccl-op}, if any
     * @return empty when the file cannot be used (the reasons are in {@code errors})
     */
    public static Optional<NcclTestsOutput> read(Path file, Optional<NcclOp> flag, List<InputError> errors) {
        String source = file.toString();
        Optional<List<String>> read = MeasurementFile.lines(file, "the output of an nccl-tests program such as "
                + "all_reduce_perf", errors);
        if (read.isEmpty()) {
            return Optional.empty();
        }
        List<String> lines = read.get();
        int before = errors.size();
        String program = null;
        int programLine = 0;
        Map<Integer, Integer> rankLines = new HashMap<>();
        Set<String> hosts = new LinkedHashSet<>();
        Map<String, Integer> columns = null;
        Map<Long, Integer> sizeLines = new HashMap<>();
        List<Raw> raws = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            int line = i + 1;
            String text = lines.get(i).strip();
            if (text.isEmpty() || text.contains("NCCL INFO") || text.contains("NCCL WARN")) {
                continue;
            }
            if (text.startsWith("#")) {
                String body = text.substring(1).strip();
                Matcher rank = RANK.matcher(body);
                if (body.startsWith(STARTING)) {
                    program = body.substring(STARTING.length()).strip();
                    programLine = line;
                } else if (rank.matches()) {
                    int r = Integer.parseInt(rank.group(1));
                    Integer earlier = rankLines.putIfAbsent(r, line);
                    if (earlier != null) {
                        errors.add(InputError.at(source, line, "Rank", "found rank " + r + " again (line "
                                + earlier + "), expected each rank once"));
                    }
                    hosts.add(rank.group(2));
                } else if (body.startsWith("size ") || body.equals("size")) {
                    columns = columns(source, line, body, errors);
                    if (columns == null) {
                        return Optional.empty();
                    }
                }
                continue;
            }
            String[] cells = text.split("\\s+");
            if (!cells[0].matches("\\d+")) {
                errors.add(InputError.at(source, line, "", "found '" + abbreviated(text) + "', expected "
                        + ROW_SHAPE + ", a '#' comment or a blank line"));
                continue;
            }
            if (columns == null) {
                errors.add(InputError.at(source, line, "", "found a result row before the column header "
                        + "(# size count type redop root time algbw busbw ...), expected the complete output of an "
                        + "nccl-tests program"));
                return Optional.empty();
            }
            Raw raw = row(source, line, cells, columns, errors);
            if (raw == null) {
                continue;
            }
            Integer earlier = sizeLines.putIfAbsent(raw.row().bytes(), line);
            if (earlier != null) {
                errors.add(InputError.at(source, line, "size", "found " + raw.row().bytes() + " bytes again "
                        + "(line " + earlier + "), expected one row per size (run one data type, one reduction "
                        + "operator and one root: -d, -o, -r)"));
                continue;
            }
            raws.add(raw);
        }
        if (columns == null) {
            errors.add(InputError.at(source, 0, "", "found no column header (# size count type redop root "
                    + "time algbw busbw ...), expected the output of an nccl-tests program"));
            return Optional.empty();
        }
        if (raws.isEmpty() && errors.size() == before) {
            errors.add(InputError.at(source, 0, "", "found no result rows, expected one per message size"));
        }
        if (rankLines.isEmpty()) {
            errors.add(InputError.at(source, 0, "Rank", "found no '#  Rank N Group G Pid P on HOST device D' "
                    + "lines, expected the device list nccl-tests prints before the results (they give the ranks "
                    + "and hosts)"));
        } else if (rankLines.size() < 2) {
            errors.add(InputError.at(source, rankLines.values().iterator().next(), "Rank", "found 1 rank, "
                    + "expected at least 2 for a collective"));
        }
        if (errors.size() > before) {
            return Optional.empty();
        }
        int ranks = rankLines.size();
        Optional<NcclOp> fromProgram = program == null ? Optional.empty() : NcclOp.ofProgram(program);
        if (program != null && fromProgram.isEmpty()) {
            errors.add(InputError.at(source, programLine, "program", "found '" + program + "', expected one of "
                    + String.join(", ", NcclOp.ids().stream().map(id -> id + "_perf").toList())));
            return Optional.empty();
        }
        if (fromProgram.isPresent() && flag.isPresent() && fromProgram.get() != flag.get()) {
            errors.add(InputError.at(source, programLine, "program", "found '" + program + "', but --nccl-op "
                    + "says " + flag.get().id() + ", expected the two to agree (drop --nccl-op)"));
            return Optional.empty();
        }
        NcclOp op;
        String opFrom;
        if (fromProgram.isPresent()) {
            op = fromProgram.get();
            opFrom = FROM_HEADER;
        } else if (flag.isPresent()) {
            op = flag.get();
            opFrom = "--nccl-op";
        } else if (NcclOp.inName(file.getFileName().toString()).isPresent()) {
            op = NcclOp.inName(file.getFileName().toString()).get();
            opFrom = "its file name";
        } else {
            List<NcclOp> fit = new ArrayList<>();
            for (NcclOp candidate : NcclOp.values()) {
                if (consistent(source, candidate, "", ranks, raws, new ArrayList<>())) {
                    fit.add(candidate);
                }
            }
            if (fit.size() != 1) {
                errors.add(InputError.at(source, 0, "op", "found no operation name in a '# " + STARTING
                        + "' line or in the file name, and its columns fit "
                        + (fit.isEmpty() ? "no operation" : CsvTable.alternatives(fit.stream().map(NcclOp::id)
                        .toList())) + ", expected --nccl-op " + String.join("|", NcclOp.ids())));
                return Optional.empty();
            }
            op = fit.get(0);
            opFrom = "its redop, root and busbw/algbw columns";
        }
        if (!consistent(source, op, opFrom, ranks, raws, errors)) {
            return Optional.empty();
        }
        return Optional.of(new NcclTestsOutput(source, op, opFrom, ranks, List.copyOf(hosts),
                raws.stream().map(Raw::row).toList()));
    }

    /** "nvlink" when every rank is on one host (one NVLink domain), "network" otherwise. */
    public String medium() {
        return hosts.size() == 1 ? "nvlink" : "network";
    }

    private static Map<String, Integer> columns(String source, int line, String body, List<InputError> errors) {
        String[] names = body.split("\\s+");
        Map<String, Integer> columns = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            columns.putIfAbsent(names[i], i);
        }
        if (columns.containsKey("cputime")) {
            errors.add(InputError.at(source, line, "cputime", "found host CPU times (nccl-tests -C 1), "
                    + "expected GPU times (run without -C)"));
            return null;
        }
        for (String needed : List.of("time", "algbw", "busbw")) {
            if (!columns.containsKey(needed)) {
                errors.add(InputError.at(source, line, "header", "found no '" + needed + "' column, expected "
                        + "size, count, type, redop, root, time, algbw, busbw, ..."));
                return null;
            }
        }
        return columns;
    }

    private static Raw row(String source, int line, String[] cells, Map<String, Integer> columns,
                           List<InputError> errors) {
        int needed = columns.values().stream().mapToInt(Integer::intValue).filter(i -> i <= columns.get("busbw"))
                .max().orElse(0) + 1;
        if (cells.length < needed) {
            errors.add(InputError.at(source, line, "", "found " + cells.length + " cells, expected at least "
                    + needed + " (size ... busbw)"));
            return null;
        }
        int before = errors.size();
        String size = cells[columns.getOrDefault("size", 0)];
        if (!size.matches("\\d{1,18}")) {
            errors.add(InputError.at(source, line, "size", "found '" + size + "', expected a size in bytes"));
            return null;
        }
        long bytes = Long.parseLong(size);
        double time = number(source, line, "time", cells[columns.get("time")], true, "the out-of-place time in "
                + "microseconds", errors);
        double algbw = number(source, line, "algbw", cells[columns.get("algbw")], false, "GB/s", errors);
        double busbw = number(source, line, "busbw", cells[columns.get("busbw")], false, "GB/s", errors);
        String redop = columns.containsKey("redop") ? cells[columns.get("redop")] : null;
        Integer root = null;
        if (columns.containsKey("root")) {
            String r = cells[columns.get("root")];
            if (!r.matches("-?\\d+")) {
                errors.add(InputError.at(source, line, "root", "found '" + r + "', expected a rank or -1"));
            } else {
                root = Integer.valueOf(r);
            }
        }
        if (errors.size() > before) {
            return null;
        }
        return new Raw(new Row(line, bytes, time, algbw, busbw), cells[columns.get("algbw")],
                cells[columns.get("busbw")], redop, root);
    }

    private static double number(String source, int line, String column, String text, boolean positive,
                                 String what, List<InputError> errors) {
        if (CsvTable.DECIMAL.matcher(text).matches()) {
            double v = Double.parseDouble(text);
            if (positive ? v > 0 : v >= 0) {
                return v;
            }
        }
        errors.add(InputError.at(source, line, column, "found '" + text + "', expected "
                + (positive ? "a number greater than 0 (" : "a number, 0 or more (") + what + ")"));
        return Double.NaN;
    }

    /**
     * Whether every row agrees with {@code op} over {@code ranks}: redop, root, and busbw = algbw x
     * bus factor within the rounding of the two printed figures (rows with algbw under 1 GB/s are
     * too coarsely printed to tell). The first disagreement of each kind is added to {@code errors}.
     */
    private static boolean consistent(String source, NcclOp op, String opFrom, int ranks, List<Raw> raws,
                                      List<InputError> errors) {
        String hint = " (operation from " + opFrom + ", " + ranks + " ranks from the Rank lines"
                + (opFrom.equals(FROM_HEADER) ? ")" : "; give --nccl-op if the operation is wrong)");
        boolean ok = true;
        for (Raw r : raws) {
            if (r.redop() != null && !op.acceptsRedop(r.redop())) {
                errors.add(InputError.at(source, r.row().line(), "redop", "found '" + r.redop() + "', expected "
                        + (r.redop().equals("none") ? "a reduction operator" : "none") + " for " + op.id() + hint));
                ok = false;
                break;
            }
        }
        for (Raw r : raws) {
            if (r.root() != null && !op.acceptsRoot(r.root())) {
                errors.add(InputError.at(source, r.row().line(), "root", "found " + r.root() + ", expected "
                        + (r.root() == -1 ? "a root rank" : "-1") + " for " + op.id() + hint));
                ok = false;
                break;
            }
        }
        double factor = op.busFactor(ranks);
        for (Raw r : raws) {
            if (r.row().algbw() < 1) {
                continue;
            }
            double tolerance = factor * halfUnit(r.algbwText()) + halfUnit(r.busbwText()) + 1e-9;
            if (Math.abs(r.row().busbw() - factor * r.row().algbw()) > tolerance) {
                errors.add(InputError.at(source, r.row().line(), "busbw", String.format(Locale.ROOT,
                        "found %s with algbw %s (busbw/algbw %.4f), expected busbw/algbw %.4f, the bus factor of %s "
                        + "over %d ranks%s", r.busbwText(), r.algbwText(), r.row().busbw() / r.row().algbw(), factor,
                        op.id(), ranks, hint)));
                ok = false;
                break;
            }
        }
        return ok;
    }

    /** Half a unit in the last printed decimal place of {@code text}. */
    private static double halfUnit(String text) {
        int dot = text.indexOf('.');
        int decimals = dot < 0 ? 0 : text.length() - dot - 1;
        return 0.5 * Math.pow(10, -decimals);
    }

    private static String abbreviated(String text) {
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }
}
