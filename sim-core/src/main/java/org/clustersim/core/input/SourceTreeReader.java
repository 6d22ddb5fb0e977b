package org.clustersim.core.input;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/**
 * Reads a YAML ({@code .yaml}, {@code .yml}) or JSON ({@code .json}) file into a tree of
 * {@link SourceNode}s with Jackson's streaming parser, keeping the line and column of every
 * key and value. Duplicate keys are errors.
 */
public final class SourceTreeReader {
    private final JsonFactory yaml = YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private final JsonFactory json = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * Parses a file.
     *
     * @throws InputFileException for a missing or unreadable file, an unknown extension, or a syntax error
     */
    public SourceNode read(Path file) {
        String lower = file.getFileName().toString().toLowerCase(Locale.ROOT);
        JsonFactory factory;
        if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
            factory = yaml;
        } else if (lower.endsWith(".json")) {
            factory = json;
        } else {
            throw InputFileException.single(file, SourceLocation.NONE, "",
                    "the file name must end in .yaml, .yml or .json");
        }
        if (!Files.isRegularFile(file)) {
            throw InputFileException.single(file, SourceLocation.NONE, "", "no such file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            return parse(file, factory, in);
        } catch (IOException e) {
            throw InputFileException.single(file, SourceLocation.NONE, "", "cannot read: " + e.getMessage());
        }
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
        try (InputStream in = new java.io.ByteArrayInputStream(text.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
            return parse(file, factory, in);
        } catch (IOException e) {
            throw InputFileException.single(file, SourceLocation.NONE, "", "cannot read: " + e.getMessage());
        }
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
            return parse(name, yaml, in);
        } catch (IOException e) {
            throw InputFileException.single(name, SourceLocation.NONE, "", "cannot read: " + e.getMessage());
        }
    }

    private SourceNode parse(Path file, JsonFactory factory, InputStream in) throws IOException {
        try (JsonParser parser = factory.createParser(in)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw InputFileException.single(file, new SourceLocation(1, 1), "", "the file is empty");
            }
            SourceNode root = readValue(parser);
            if (parser.nextToken() != null) {
                throw InputFileException.single(file, location(parser.currentTokenLocation()), "",
                        "unexpected content after the end of the document");
            }
            return root;
        } catch (JsonProcessingException e) {
            JsonLocation loc = e.getLocation();
            String msg = e.getOriginalMessage();
            int cut = msg.indexOf('\n');
            throw InputFileException.single(file, loc == null ? SourceLocation.NONE : location(loc), "",
                    "syntax error: " + (cut > 0 ? msg.substring(0, cut) : msg));
        }
    }

    private SourceNode readValue(JsonParser p) throws IOException {
        SourceLocation loc = location(p.currentTokenLocation());
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT: {
                Map<String, SourceNode.Entry> entries = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    SourceLocation keyLoc = location(p.currentTokenLocation());
                    p.nextToken();
                    entries.put(key, new SourceNode.Entry(key, keyLoc, readValue(p)));
                }
                return new SourceNode.MapNode(entries, loc);
            }
            case START_ARRAY: {
                List<SourceNode> items = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    items.add(readValue(p));
                }
                return new SourceNode.ListNode(items, loc);
            }
            case VALUE_STRING:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.STRING, p.getText(), loc);
            case VALUE_NUMBER_INT:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.INTEGER, p.getText(), loc);
            case VALUE_NUMBER_FLOAT:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.DECIMAL, p.getText(), loc);
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.BOOLEAN, p.getText(), loc);
            case VALUE_NULL:
                return new SourceNode.ScalarNode(SourceNode.ScalarKind.NULL, "", loc);
            default:
                throw new IllegalStateException("unexpected token " + t);
        }
    }

    private static SourceLocation location(JsonLocation l) {
        return new SourceLocation(Math.max(l.getLineNr(), 0), Math.max(l.getColumnNr(), 0));
    }
}
