package org.clustersim.core.input;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads a YAML ({@code .yaml}, {@code .yml}) or JSON ({@code .json}) file into a tree of
 * {@link SourceNode}s with Jackson's streaming parser, keeping the line and column of every
 * key and value. The bytes come through {@link InputFile} (kind, size and UTF-8 checked first).
 * Every problem is reported with its line, column and field path and in the reader's own words
 * (never the parser library's): duplicate keys, numbers that are not finite ({@code .inf},
 * {@code .nan}, {@code 1e999}), nesting or values past the limits below, and a tab used to indent.
 */
public final class SourceTreeReader {
    /** Deepest nesting accepted: a scenario nests four levels. */
    public static final int MAX_DEPTH = 64;
    /** Longest text value accepted, in characters. */
    public static final int MAX_TEXT = 64 * 1024;
    /** Longest number accepted, in characters. */
    public static final int MAX_NUMBER = 64;

    private static final Pattern NON_FINITE = Pattern.compile("[-+]?\\.(inf|Inf|INF|nan|NaN|NAN)");
    private static final StreamReadConstraints LIMITS = limits();

    private final JsonFactory yaml = yamlFactory();
    private final JsonFactory json = JsonFactory.builder().streamReadConstraints(LIMITS).build();

    /**
     * The parser's limits. Key length is raised to the text limit where the Jackson on the class
     * path has that setting (2.16 on); Spark's class path (sim-spark) carries Jackson 2.15, which
     * limits no names, and {@link #readValue} checks keys itself either way.
     */
    private static StreamReadConstraints limits() {
        StreamReadConstraints.Builder b = StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                .maxStringLength(MAX_TEXT).maxNumberLength(MAX_NUMBER);
        try {
            StreamReadConstraints.Builder.class.getMethod("maxNameLength", int.class).invoke(b, MAX_TEXT);
        } catch (ReflectiveOperationException olderJackson) {
            // no name limit to raise
        }
        return b.build();
    }

    /** A YAML parser factory with this reader's limits, for readers that build their own trees. */
    public static YAMLFactory yamlFactory() {
        LoaderOptions options = new LoaderOptions();
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setCodePointLimit((int) InputFile.MAX_STRUCTURED_BYTES);
        options.setMaxAliasesForCollections(10);
        return YAMLFactory.builder().loaderOptions(options).streamReadConstraints(LIMITS).build();
    }

    /**
     * Parses a file.
     *
     * @throws InputFileException for a missing or unreadable file, an unknown extension, or a syntax error
     */
    public SourceNode read(Path file) {
        String lower = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        JsonFactory factory;
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            factory = yaml;
        } else if (lower.endsWith(".json")) {
            factory = json;
        } else {
            throw InputFileException.single(file, SourceLocation.NONE, "",
                    "the file name must end in .yaml, .yml or .json");
        }
        String text = InputFile.readText(file, InputFile.MAX_STRUCTURED_BYTES, "a " + (factory == json ? "JSON"
                : "YAML") + " file");
        return parse(file, factory, text);
    }

    /**
     * Parses {@code text} as the content of {@code file} (its extension picks YAML or JSON, and
     * errors name it): for documents built in memory, such as a design-space search's candidates.
     *
     * @throws InputFileException for an unknown extension or a syntax error
     */
    public SourceNode readText(Path file, String text) {
        String lower = file.getFileName().toString().toLowerCase(Locale.ROOT);
        JsonFactory factory = lower.endsWith(".json") ? json : lower.endsWith(".yaml") || lower.endsWith(".yml") ? yaml
                : null;
        if (factory == null) {
            throw InputFileException.single(file, SourceLocation.NONE, "",
                    "the file name must end in .yaml, .yml or .json");
        }
        return parse(file, factory, text);
    }

    /**
     * Parses a YAML resource on the class path (a bundled device profile, say); errors name
     * {@code resource} as the file.
     *
     * @throws InputFileException for a missing resource or a syntax error
     */
    public SourceNode readResource(String resource) {
        Path name = Path.of(resource.startsWith("/") ? resource.substring(1) : resource);
        InputStream in = SourceTreeReader.class.getResourceAsStream(resource);
        if (in == null) {
            throw InputFileException.single(name, SourceLocation.NONE, "", "no such resource");
        }
        try (in) {
            return parse(name, yaml, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw InputFileException.single(name, SourceLocation.NONE, "", "cannot read: " + e.getMessage());
        }
    }

    /** Parses text already read; errors name {@code file}. */
    public SourceNode parse(Path file, JsonFactory factory, String text) {
        Diagnostics problems = new Diagnostics(file);
        JsonParser parser;
        try {
            parser = factory.createParser(text);
        } catch (IOException e) {
            throw InputFileException.single(file, SourceLocation.NONE, "", "cannot read: " + e.getMessage());
        }
        try (parser) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw InputFileException.single(file, new SourceLocation(1, 1), "", "the file is empty");
            }
            SourceNode root = readValue(parser, "", 0, problems);
            if (parser.nextToken() != null) {
                throw InputFileException.single(file, location(parser.currentTokenLocation()), "",
                        "unexpected content after the end of the document");
            }
            problems.throwIfAny();
            return root;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation() != null ? e.getLocation() : parser.currentLocation();
            SourceLocation loc = at == null ? SourceLocation.NONE : location(at);
            String truncated = EndOfInput.explain(e, parser);
            throw InputFileException.single(file, loc, "", truncated != null ? truncated : explain(e, text, loc));
        } catch (IOException e) {
            throw InputFileException.single(file, SourceLocation.NONE, "", "cannot read: " + e.getMessage());
        }
    }

    private SourceNode readValue(JsonParser p, String path, int depth, Diagnostics problems) throws IOException {
        SourceLocation loc = location(p.currentTokenLocation());
        JsonToken t = p.currentToken();
        if (depth > MAX_DEPTH && (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY)) {
            throw InputFileException.single(problems.file(), loc, path, tooDeep());
        }
        switch (t) {
            case START_OBJECT: {
                Map<String, SourceNode.Entry> entries = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    if (key.length() > MAX_TEXT) {
                        throw InputFileException.single(problems.file(), location(p.currentTokenLocation()), path,
                                "a key longer than " + MAX_TEXT + " characters");
                    }
                    SourceLocation keyLoc = location(p.currentTokenLocation());
                    String keyPath = path.isEmpty() ? key : path + "." + key;
                    p.nextToken();
                    SourceNode value = readValue(p, keyPath, depth + 1, problems);
                    SourceNode.Entry earlier = entries.get(key);
                    if (earlier != null) {
                        problems.error(keyLoc, keyPath, "given twice; the first is on line "
                                + earlier.keyLocation().line() + " (keep one)");
                        continue;
                    }
                    entries.put(key, new SourceNode.Entry(key, keyLoc, value));
                }
                return new SourceNode.MapNode(entries, loc);
            }
            case START_ARRAY: {
                List<SourceNode> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(readValue(p, path + "[" + items.size() + "]", depth + 1, problems));
                }
                return new SourceNode.ListNode(items, loc);
            }
            case VALUE_STRING:
                if (p.getTextLength() > MAX_TEXT) {
                    problems.error(loc, path, "a text value longer than " + MAX_TEXT + " characters ("
                            + p.getTextLength() + ")");
                    return new SourceNode.ScalarNode(SourceNode.ScalarKind.NULL, "", loc);
                }
                String text = p.getText();
                for (int i = 0; i < text.length(); i++) {
                    char c = text.charAt(i);
                    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
                        // an escape such as "\0" in a quoted YAML or JSON string: no name or path holds one
                        problems.error(loc, path, String.format(Locale.ROOT, "the text holds the control character "
                                + "U+%04X, expected printable text", (int) c));
                        return new SourceNode.ScalarNode(SourceNode.ScalarKind.NULL, "", loc);
                    }
                }
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.STRING, text, loc);
            case VALUE_NUMBER_INT:
                return integer(p, path, loc, problems);
            case VALUE_NUMBER_FLOAT:
                return decimal(p.getText(), path, loc, problems);
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.BOOLEAN, p.getText(), loc);
            case VALUE_NULL:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.NULL, "", loc);
            default:
                throw InputFileException.single(problems.file(), loc, path, "found a value of a kind this reader "
                        + "does not accept (" + t.asString() + "); expected a mapping, list, text, number or boolean");
        }
    }

    /** An integer as canonical decimal digits (YAML also writes 0x1F, 0o17, 1_000). */
    private static SourceNode integer(JsonParser p, String path, SourceLocation loc, Diagnostics problems)
            throws IOException {
        String text = p.getText();
        try {
            return new SourceNode.ScalarNode(SourceNode.ScalarKind.INTEGER, p.getBigIntegerValue().toString(), loc);
        } catch (NumberFormatException | JsonProcessingException e) {
            problems.error(loc, path, "found '" + text + "', expected a number written in decimal digits");
            return new SourceNode.ScalarNode(SourceNode.ScalarKind.NULL, "", loc);
        }
    }

    /** A decimal, which must be finite: YAML's .inf and .nan and overflowing exponents are refused here. */
    private static SourceNode decimal(String text, String path, SourceLocation loc, Diagnostics problems) {
        double value;
        try {
            value = NON_FINITE.matcher(text).matches() ? Double.NaN : Double.parseDouble(text.replace("_", ""));
        } catch (NumberFormatException e) {
            value = Double.NaN;
        }
        if (!Double.isFinite(value)) {
            problems.error(loc, path, "found " + text + ", expected a finite number");
            return new SourceNode.ScalarNode(SourceNode.ScalarKind.NULL, "", loc);
        }
        return new SourceNode.ScalarNode(SourceNode.ScalarKind.DECIMAL, text.replace("_", ""), loc);
    }

    /** The parser's complaint in this reader's words, without library names. */
    private static String explain(JsonProcessingException e, String text, SourceLocation loc) {
        if (e instanceof StreamConstraintsException) {
            String m = String.valueOf(e.getOriginalMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("nesting")) {
                return tooDeep();
            }
            if (m.contains("number")) {
                return "a number longer than " + MAX_NUMBER + " characters";
            }
            return "a text value or key longer than " + MAX_TEXT + " characters";
        }
        String original = String.valueOf(e.getOriginalMessage());
        String lower = original.toLowerCase(Locale.ROOT);
        if (lower.contains("nesting depth")) {
            return tooDeep();
        }
        if (lower.contains("code point") || lower.contains("exceeds the limit")) {
            return "the document is larger than the reader accepts (" + InputFile.size(InputFile.MAX_STRUCTURED_BYTES)
                    + ")";
        }
        if (lower.contains("alias")) {
            return "YAML anchors and aliases (&name, *name) are not supported; write the values out";
        }
        if (lower.startsWith("non-standard token")) {
            int q = original.indexOf('\'');
            int q2 = q < 0 ? -1 : original.indexOf('\'', q + 1);
            return "found " + (q2 > q ? original.substring(q + 1, q2) : "a non-standard token")
                    + ", expected a finite number (JSON has no NaN or Infinity)";
        }
        int tabLine = tabIndentedLine(text, loc.line() + 1);
        if (tabLine > 0) {
            return "line " + tabLine + " is indented with a tab; YAML indents with spaces only";
        }
        int cut = original.indexOf('\n');
        String first = cut > 0 ? original.substring(0, cut) : original;
        return "syntax error: " + scrub(first);
    }

    private static String tooDeep() {
        return "nested deeper than " + MAX_DEPTH + " levels (a scenario nests four)";
    }

    /** The first line up to {@code line} (all lines if 0) whose indentation holds a tab, or 0. */
    static int tabIndentedLine(String text, int line) {
        String[] lines = text.split("\n", -1);
        int last = line > 0 ? Math.min(line, lines.length) : lines.length;
        for (int i = 0; i < last; i++) {
            String l = lines[i];
            for (int c = 0; c < l.length() && (l.charAt(c) == ' ' || l.charAt(c) == '\t'); c++) {
                if (l.charAt(c) == '\t' && c < l.length() - 1 && !l.substring(c).isBlank()) {
                    return i + 1;
                }
            }
        }
        return 0;
    }

    /** Drops the parser library's internals from a message: class and method names, feature hints. */
    public static String scrub(String message) {
        String m = message.replaceAll("<org\\.yaml\\.snakeyaml\\.events\\.SequenceStartEvent[^>]*>", "a list")
                .replaceAll("<org\\.yaml\\.snakeyaml\\.events\\.MappingStartEvent[^>]*>", "a mapping")
                .replaceAll("<org\\.yaml\\.snakeyaml\\.events\\.(\\w+)Event[^>]*>", "$1")
                .replaceAll(":?\\s*enable\\s*`[^`]*`\\s*to allow", "")
                .replaceAll("\\s*\\((?:for|to allow|from|through reference chain)[^)]*\\)", "")
                .replaceAll("`[^`]*`", "")
                .replaceAll("(?:[a-z]+\\.)+[A-Z][A-Za-z]*(?:Exception|Error)?:\\s*", "")
                .replaceAll("\\s+", " ").trim();
        return m.isEmpty() ? "the text cannot be parsed here" : m;
    }

    private static SourceLocation location(JsonLocation l) {
        return new SourceLocation(Math.max(l.getLineNr(), 0), Math.max(l.getColumnNr(), 0));
    }
}
