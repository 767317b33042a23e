// Package notify tells people what a job does while nobody watches it: a
// card is free (a cascade's first run verified it: it may leave the
// reader, not be formatted), a card is safe to format, the job ended (its
// verdicts, its PDF report attached to the mail), something failed (one
// message per card, not per file), a card stalled (where, and why in the
// engine's words) and moves again. A later verdict replaces an earlier
// failure: a card that failed and that a retry or a resume makes free or
// safe is said to be so, naming what it replaces. Messages render the
// engine's verdicts (package verdict) and events; they decide nothing.
//
// A [Notifier] delivers each [Message] to the configured channels in the
// background. It never fails or slows the offload: Notify only queues (a
// bounded queue per channel; what does not fit is dropped and counted),
// each channel delivers in its own goroutine with a timeout and retries,
// and Close waits a bounded time at the end of the job, then gives up and
// returns what did not go out as warnings, secrets redacted.
//
// # Channels
//
//   - webhook: an HTTP(S) POST of JSON. By default dit's own message
//     ([Payload]: kind, job_id, job, card, text, time, host, state, the
//     verdict it replaces (replaces), a stall's hop and where, cards with
//     their verdicts, exit_code, attachments by name and path, and title,
//     the one-line subject; a card's notice and each card of job_done
//     carry summary, the card in the one card shape of dit jobs --json
//     and the events, offload.CardSummary); with format: slack, {"text": "..."}, which
//     Slack, Mattermost and Rocket.Chat incoming webhooks take. A 2xx
//     answer is delivered; a timeout, a refused connection, 408, 429 or
//     5xx is tried again (tries, default 3, waiting 0.5 s, 1 s, ...); any
//     other 4xx is not. After a message failed every try, the next ones
//     get a single try until one goes through (a server that is down
//     does not pile up retries).
//   - email: SMTP with net/smtp. tls: auto (default) uses STARTTLS when
//     the server offers it, starttls refuses a server that does not, tls
//     is implicit TLS (port 465), none never encrypts. With user, PLAIN
//     authentication (which Go sends only over TLS or to localhost). The
//     subject says job, card and state plainly; job_done carries the
//     job's PDF report as a base64 attachment (multipart/mixed) unless
//     attach_report: false or it is larger than max_attachment_mb
//     (default 20): then its path is in the text.
//
// # Configuration
//
// The notify: section of a YAML file: the user's config file
// (os.UserConfigDir()/dit/config.yaml, e.g. ~/.config/dit/config.yaml on
// Linux, ~/Library/Application Support/dit/config.yaml on macOS), a file
// given with dit offload --notify-config, or a preset. Other top-level
// keys belong to other parts of dit and are left alone. [Parse] and
// [Load] read it; errors name the file, the line and the key.
//
//	notify:
//	  wait: 30s             # at the end of a job, wait this long for pending messages
//	  queue: 256            # messages held per channel while it is slow
//	  webhook:              # one mapping, or a list of them (webhooks: works too)
//	    - name: slack
//	      url_env: DIT_SLACK_URL   # or url: https://..., or url_file: FILE
//	      format: slack            # json (default) or slack
//	      timeout: 10s             # per try (default 10s)
//	      tries: 3                 # default 3
//	      events: [safe_to_format, job_done, failure, stalled]   # default: all
//	    - name: office
//	      url: https://dit.example.com/hook
//	      token_env: DIT_WEBHOOK_TOKEN   # Authorization: Bearer ...
//	  email:                # one mapping, or a list of them
//	    host: smtp.example.com
//	    port: 587           # default 587 (465 with tls: tls, 25 with tls: none)
//	    tls: auto           # auto, starttls, tls or none
//	    user: dit@example.com
//	    password_env: DIT_SMTP_PASSWORD   # or password_file: ~/.config/dit/smtp-password
//	    from: "DIT cart <dit@example.com>"
//	    to: [dop@example.com, post@example.com]
//	    events: [safe_to_format, job_done, failure]
//	    attach_report: true
//	    timeout: 30s
//
// The kinds of events are card_free, safe_to_format, job_done, failure and
// stalled (its "moving again" message, kind moving, goes where stalled
// goes), or all. Durations are Go durations (10s, 2m) or seconds.
//
// # Secrets
//
// A password, a token or a secret URL is never written in the file: a key
// password:, token: or secret: is refused, and the error says to use
// NAME_env (an environment variable) or NAME_file (a file holding only
// it; a relative path is relative to the config file; a final newline is
// dropped). They are read when the file is parsed, so a missing one stops
// the job before it starts. A [Secret] prints as [redacted]; a webhook is
// named in warnings by its name and host only, never its path (a Slack URL
// carries its key there); and warnings have every secret value replaced.
// Secrets are never written to the catalog.
package notify
