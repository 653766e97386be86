package org.jrdma.examples;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jrdma.Rdma;
import org.jrdma.RdmaConfig;
import org.jrdma.RdmaContext;
import org.jrdma.kv.SimpleApp;
import org.jrdma.kv.SimplePeer;
import org.jrdma.kv.SimpleRequestHandler;

/**
 * ps-lite's SimpleApp: a server answers requests by their head — 1 upper-cases the body, 2 counts its words —
 * and refuses any other head with a reason; a client asks, checks the answers, and shows a refusal.
 */
final class SimpleExample {
    static final int UPPER = 1;
    static final int WORDS = 2;

    private SimpleExample() {
    }

    /** simple-server HOST:PORT: answers until the process is killed. */
    static int server(String[] args) throws InterruptedException {
        if (args.length != 1) {
            System.err.println("usage: simple-server HOST:PORT");
            return 2;
        }
        RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
        SimpleRequestHandler handler = request -> {
            String text = new String(request.body(), StandardCharsets.UTF_8);
            switch (request.head()) {
                case UPPER -> request.respond(text.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
                case WORDS -> request.respond(Integer.toString(text.isBlank() ? 0 : text.trim().split("\\s+").length)
                        .getBytes(StandardCharsets.UTF_8));
                default -> request.fail("no head " + request.head() + " here (1: upper case, 2: word count)");
            }
        };
        SimpleApp app = SimpleApp.listen(context, Examples.address(args[0]), handler, SimpleApp.DEFAULT_MAX_BODY_BYTES);
        System.out.println("simple-server listening on " + app.localAddress() + " over " + context.transport());
        Thread.currentThread().join();
        return 0;
    }

    /** simple-client HOST:PORT: asks for an upper-cased text and a word count, checks both, then an unknown head. */
    static int client(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: simple-client HOST:PORT");
            return 2;
        }
        String text = "push pull and simple requests over one channel";
        try (RdmaContext context = Rdma.open(RdmaConfig.fromEnvironment());
             SimpleApp app = SimpleApp.open(context, SimpleRequestHandler.refuseAll(), SimpleApp.DEFAULT_MAX_BODY_BYTES)) {
            SimplePeer server = app.connect(Examples.address(args[0]), null).get(30, TimeUnit.SECONDS);
            byte[] body = text.getBytes(StandardCharsets.UTF_8);
            String upper = new String(server.request(UPPER, body).get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
            String words = new String(server.request(WORDS, body).get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
            if (!upper.equals(text.toUpperCase(Locale.ROOT)) || !words.equals("8")) {
                System.out.println("simple-client: wrong answers: \"" + upper + "\", " + words);
                return 1;
            }
            String refusal;
            try {
                server.request(9, body).get(30, TimeUnit.SECONDS);
                System.out.println("simple-client: head 9 was answered; the server should refuse it");
                return 1;
            } catch (ExecutionException refused) {
                refusal = refused.getCause().getMessage();
            }
            System.out.println("simple-client: \"" + upper + "\", " + words + " words; head 9 refused (" + refusal
                    + "), over " + context.transport());
            return 0;
        }
    }
}
