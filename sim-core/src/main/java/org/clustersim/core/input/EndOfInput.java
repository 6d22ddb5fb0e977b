package org.clustersim.core.input;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.JsonEOFException;

/**
 * A file that ends too early (cut off by a copy, an editor or a full disk), said in the reader's
 * words: what is still open, where it was opened and what closes it, such as "the file ends
 * inside an object opened at line 3 (a '}' is missing)". The parsers' own messages named their
 * internals ("expected close marker for Object (start marker at [Source: REDACTED ...").
 */
final class EndOfInput {
    /** snakeyaml's "line L, column C" of the place its message names first (where the open part began). */
    private static final Pattern MARK = Pattern.compile("line (\\d+), column (\\d+)");

    private EndOfInput() {
    }

    /** What is missing when {@code e} is the parser reaching the end of the text too early, else null. */
    static String explain(JsonProcessingException e, JsonParser parser) {
        String m = String.valueOf(e.getOriginalMessage());
        if (e instanceof JsonEOFException || m.startsWith("Unexpected end-of-input")) {
            return json(m, parser.getParsingContext());
        }
        if (m.contains("end of stream") || m.contains("<stream end>")) {
            return yaml(m);
        }
        return null;
    }

    private static String json(String message, JsonStreamContext context) {
        List<String> open = new ArrayList<>();
        StringBuilder closers = new StringBuilder();
        boolean inText = message.contains("closing quote");
        if (inText) {
            closers.append('"');
        }
        for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
            JsonLocation at = c.startLocation(ContentReference.unknown());
            open.add((c.inObject() ? "an object" : "a list") + " opened at line " + at.getLineNr());
            closers.append(c.inObject() ? '}' : ']');
        }
        StringBuilder b = new StringBuilder("the file ends ");
        if (inText) {
            b.append("inside a quoted text");
        } else if (message.contains("within/between")) {
            b.append("where a ").append(context.inObject() ? "field or value" : "value").append(" is expected");
        } else if (open.isEmpty()) {
            return "the file ends before its first value is complete";
        } else {
            b.append("inside ").append(open.remove(0));
        }
        for (int i = 0; i < open.size(); i++) {
            b.append(i == 0 && (inText || message.contains("within/between")) ? ", inside " : ", within ")
                    .append(open.get(i));
        }
        String missing = closers.toString();
        return b.append(missing.length() == 1 ? " (a '" + missing + "' is missing)"
                : " ('" + missing + "' is missing)").toString();
    }

    private static String yaml(String message) {
        String context = message.lines().findFirst().orElse("").strip();
        Matcher mark = MARK.matcher(message);
        String where = mark.find() ? " opened at line " + mark.group(1) + ", column " + mark.group(2) : "";
        if (context.contains("quoted scalar")) {
            return "the file ends inside a quoted text" + where + " (its closing quote is missing)";
        }
        if (context.contains("flow mapping")) {
            return "the file ends inside a '{' mapping" + where + " (a '}' is missing)";
        }
        if (context.contains("flow sequence")) {
            return "the file ends inside a '[' list" + where + " (a ']' is missing)";
        }
        return null;
    }
}
