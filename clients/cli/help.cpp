// help.cpp -- the texts of `pouch --help`, `pouch CMD --help` and the man page (help.h).
// Paragraphs are plain text; the man page escapes them for roff.
#include "clients/cli/help.h"

#include <sstream>

namespace pouch::cli {

namespace {

const std::vector<OptionDoc> kGlobal = {
    {"--config DIR",
     "keep this device's state in DIR instead of $XDG_CONFIG_HOME/pouch "
     "(~/.config/pouch when XDG_CONFIG_HOME is unset)"},
    {"--ca-file PATH",
     "trust only the certificates in the PEM file PATH for the server's https (its own "
     "certificate, e.g. a self-signed one, or the CA that signed it) instead of the system's "
     "CA store; `pouch login --ca-file PATH` remembers it (its absolute path, read again on "
     "every run) for every later command of this device, and a later --ca-file overrides it "
     "for that run. A certificate that is not trusted stops the command (exit 4)"},
    {"--help", "show the help of the command"},
};

const std::vector<CommandDoc> kCommands = {
    {"login",
     "login [--server URL] [--name NAME] [--connect-token TOKEN] [--insecure-http]",
     "enrol this computer as a device of your account",
     "Makes this device's signing and encryption keys, starts a login on the server and prints "
     "the address to open in a browser where you are signed in, a 12-digit code to type on that "
     "page, and this device's key fingerprint, which the page must show too. pouch builds the "
     "address itself from --server, the login's request id and a fragment holding its public "
     "keys and a random value the server never sees; the code is derived from them, so only "
     "the page opened from this very address can compute it. A server that names another "
     "approval address stops the login (exit 5). pouch then waits for the approval, opens the "
     "welcome the browser sealed to this device, verifies the account's roster (every member "
     "key is signed by an earlier member, back to the account's genesis) and opens the pouch "
     "keys sealed to it. The state is kept in the config directory (mode 0700, keys and tokens "
     "0600). Access tokens are refreshed transparently. Plain http:// is for this computer "
     "only (localhost, 127.0.0.0/8, [::1]); any other server needs https://.",
     {{"--server URL",
       "the server's address, http(s)://HOST[:PORT][/PATH] (default: $POUCH_SERVER, else "
       "http://127.0.0.1:8080); the web app must be served at the same address"},
      {"--name NAME",
       "the device name shown in the browser and in conflict copies: 1 to 64 characters, no "
       "control characters, no / or \\, no space at either end (default: the host name)"},
      {"--connect-token TOKEN",
       "a svc_lt_ token from the web app's \"Connect a new CLI\" page (valid 10 minutes, once): "
       "only that account can approve this login"},
      {"--insecure-http",
       "allow plain http:// to a server that is not this computer (a lab network you control): "
       "the network can then read and change everything, tokens included; every later run of "
       "this device says so"}}},
    {"logout",
     "logout [--local]",
     "revoke this device and forget its state",
     "Revokes this device on the server together with a signed roster statement that removes "
     "its member and names the key generation the pouches move to (rotated_to): from it on, "
     "other devices refuse any key or file this device makes. It sends no new keys: the "
     "rotation is then made in the web app (Devices, \"Rotate keys now\"), and until then this "
     "device's keys still open what is written. Then deletes the local state (keys, tokens, "
     "folder bindings); the files in synced folders stay.",
     {{"--local",
       "only forget the local state (for a device that was already revoked, or a "
       "server that is gone)"}}},
    {"status",
     "status [--json]",
     "show the login, the pouches and the synced folders",
     "Shows the server, the account, this device and its member, whether a login is pending, "
     "the pouches this device holds keys for, and every folder bound to a pouch with the last "
     "event it applied and whether a commit is waiting to be resent.",
     {{"--json", "print one JSON object"}}},
    {"devices",
     "devices [--json]",
     "list the account's devices",
     "Lists every device of the account, oldest first, revoked ones included; this device is "
     "marked with *.",
     {{"--json", "print one JSON object"}}},
    {"rename",
     "rename NAME",
     "rename this device",
     "Sets this device's name on the server: 1 to 64 characters, no control characters, no / "
     "or \\, no space at either end. The name this device has in the roster (the one conflict "
     "copies show) stays the one it was approved with.",
     {}},
    {"ls",
     "ls [POUCH] [--json] [--deleted]",
     "list pouches, or the files of one pouch",
     "Without POUCH, lists the pouches this device can read. With POUCH (an id or an unambiguous "
     "prefix of one), decrypts and lists its files: name, size, modification time and the "
     "revision. Every revision is verified (signature by a member of the verified roster, "
     "authenticated decryption) before it is shown.",
     {{"--json", "print one JSON object"}, {"--deleted", "also list deleted files"}}},
    {"push",
     "push PATH... [--pouch POUCH]",
     "send local changes of a folder to its pouch",
     "Each PATH is a folder, which is bound to a pouch on first use (the account's first pouch "
     "unless --pouch is given), or a file or folder inside a bound folder. New and changed files "
     "become put operations (in batches of at most 50), deleted files become deletes, a file "
     "moved within the folder becomes a rename. Files over 64 KiB travel as encrypted chunks of "
     "512 KiB to 4 MiB cut where the content says (an insertion changes only the chunks near "
     "it); a chunk the server already holds is never sent again, and several are uploaded at "
     "once. Each batch is written to "
     "the folder's state before it is sent, so a pouch that is killed and run again resends the "
     "same batch and nothing is stored twice. When the server's copy changed meanwhile, both "
     "versions are kept: the server's stays at its name, this device's becomes a conflict copy "
     "named \"NAME (conflict DEVICE DATE).EXT\".",
     {{"--pouch POUCH", "bind a new folder to this pouch (id or prefix)"}}},
    {"pull",
     "pull DIR [--pouch POUCH] [--watch]",
     "apply the pouch's changes to a folder",
     "Reads the pouch's event feed from the last event applied, verifies and decrypts every "
     "changed file and writes it atomically (a temporary file, then rename). A file changed "
     "locally and remotely is kept twice (a conflict copy). Local changes are not sent (use push "
     "or sync). The applied position is reported to the server. With --watch it keeps running "
     "and applies remote changes as they arrive through the event feed's long-poll (a "
     "receive-only folder). Stop it with Ctrl-C.",
     {{"--pouch POUCH", "bind a new folder to this pouch (id or prefix)"},
      {"--watch", "keep applying the pouch's changes until interrupted"}}},
    {"sync",
     "sync DIR [--pouch POUCH] [--watch]",
     "pull, then push; with --watch, keep at it",
     "Pulls the pouch's changes into DIR, then pushes DIR's changes. With --watch it keeps "
     "running: remote changes arrive through the event feed's long-poll and local changes are "
     "noticed through inotify, each within a fraction of a second. Stop it with Ctrl-C.",
     {{"--pouch POUCH", "bind a new folder to this pouch (id or prefix)"},
      {"--watch", "keep the folder in sync until interrupted"}}},
    {"shared",
     "shared [--json]",
     "list the pouches shared between this account and others",
     "Lists every pouch this account shares with other accounts: those it was invited to and "
     "accepted, and its own that it shared, with this account's role (read, write or admin) "
     "and the owner, whose plan pays for the pouch's storage. A shared pouch syncs like any "
     "other (pouch sync DIR --pouch POUCH); with the role read, pouch refuses to push to it.",
     {{"--json", "print one JSON object"}}},
    {"invitations",
     "invitations [accept|decline INVITATION] [--json]",
     "list, accept or decline invitations to other accounts' pouches",
     "Without arguments, lists the invitations this account received and those it sent. "
     "accept checks the invitation before it says yes: the inviter's identity against its "
     "account's genesis and the identity pinned on this device (a changed one stops, exit 5), "
     "and the pouch's signed access list, which must name this account with this account's "
     "identity and the invited role. Then it opens the pouch keys granted to this account and "
     "seals them to each of this account's devices, and prints the safety number to compare "
     "with the inviter. decline signs this account's leave statement.",
     {{"--json", "print one JSON object (the list)"}}},
    {"members",
     "members POUCH [--json]",
     "list the accounts of a shared pouch",
     "Verifies the pouch's access list in full (every statement signed by an admin's identity, "
     "chained to the one before and to what this device verified earlier) and lists each "
     "account with the role the list gives it, the state the service reports (active, "
     "invited, expired) and whether you compared its safety number. A role the service "
     "reports differently from the list is shown with both.",
     {{"--json", "print one JSON object"}}},
    {"verify",
     "verify ACCOUNT|EMAIL [--compared] [--accept-new] [--json]",
     "show the safety number of this account and another",
     "Prints the 60-digit safety number of this account's identity and another account's, the "
     "same on both sides: compare it in person or on a call. An account named by e-mail is "
     "looked up (the answer looks the same whether the address has an account or not); one "
     "named by its id must be pinned on this device already. The first identity seen for an "
     "account is pinned; a different one later is refused everywhere (exit 5) until you accept "
     "it with --accept-new, after comparing the new number.",
     {{"--compared", "record that you compared the number and it matched"},
      {"--accept-new", "pin the account's new identity (with an e-mail address)"},
      {"--json", "print one JSON object"}}},
    {"help",
     "help [COMMAND] [--man]",
     "show help",
     "Shows the overview, or the help of one command. --man prints the manual page in roff "
     "(docs/pouch.1 is made with it).",
     {{"--man", "print the manual page"}}},
};

const char* kExitCodes[][2] = {
    {"0", "success"},
    {"1", "failure (an error the message explains)"},
    {"2", "usage: an unknown command or option, a missing argument"},
    {"3", "not logged in, or this device was revoked or its session ended: run pouch login"},
    {"4", "the server cannot be reached, or keeps answering 502, 503 or 504"},
    {"5",
     "integrity: the account's roster, its pinned head, the approval (the welcome, the approval "
     "address) or a pouch's key generation (a rollback) cannot be trusted; the command stops and "
     "nothing unverified was used"},
    {"6", "the login was denied in the browser, or expired"},
    {"7",
     "done with skipped items: everything else was applied and sent; the items named could "
     "not be (a symlink or a file in the way, an unsafe name, a permission, a missing key, a "
     "revision refused as untrusted) and are tried again at the next pull"},
    {"130", "interrupted (Ctrl-C)"},
};

void wrap(std::ostringstream& o, const std::string& text, size_t indent, size_t width = 78) {
    std::istringstream words(text);
    std::string w;
    size_t col = 0;
    while (words >> w) {
        if (col > 0 && col + 1 + w.size() > width) {
            o << "\n";
            col = 0;
        }
        if (col == 0) {
            o << std::string(indent, ' ') << w;
            col = indent + w.size();
        } else {
            o << " " << w;
            col += 1 + w.size();
        }
    }
    o << "\n";
}

std::string roff(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else if ((c == '.' || c == '\'') && (i == 0 || s[i - 1] == '\n'))
            out += "\\&" + std::string(1, c);
        else
            out += c;
    }
    return out;
}

}  // namespace

const std::vector<CommandDoc>& command_docs() {
    return kCommands;
}

const CommandDoc* find_command_doc(const std::string& name) {
    for (const auto& c : kCommands)
        if (c.name == name) return &c;
    return nullptr;
}

std::string overview_help() {
    std::ostringstream o;
    o << "pouch -- keep folders in sync with a Pouch Sync account, end-to-end encrypted\n\n"
      << "usage: pouch COMMAND [ARGS] [--config DIR] [--ca-file PATH]\n\ncommands:\n";
    for (const auto& c : kCommands) {
        std::string head = "  " + c.name;
        o << head << std::string(head.size() < 12 ? 12 - head.size() : 1, ' ') << c.summary << "\n";
    }
    o << "\n`pouch COMMAND --help` shows a command's options. Exit codes:\n";
    for (const auto& e : kExitCodes)
        o << "  " << e[0] << std::string(5 - std::string(e[0]).size(), ' ') << e[1] << "\n";
    return o.str();
}

std::string command_help(const CommandDoc& c) {
    std::ostringstream o;
    o << "usage: pouch " << c.synopsis << "\n\n";
    wrap(o, c.summary + ".", 0);
    o << "\n";
    wrap(o, c.description, 0);
    o << "\noptions:\n";
    auto opts = c.options;
    opts.insert(opts.end(), kGlobal.begin(), kGlobal.end());
    for (const auto& op : opts) {
        o << "  " << op.flag << "\n";
        wrap(o, op.text, 6);
    }
    return o.str();
}

std::string man_page() {
    std::ostringstream o;
    o << ".\\\" Generated by `pouch help --man` from clients/cli/help.cpp; do not edit.\n"
      << ".TH POUCH 1 \"\" \"Pouch Sync\" \"User Commands\"\n"
      << ".SH NAME\npouch \\- keep folders in sync with a Pouch Sync account, end\\-to\\-end "
         "encrypted\n"
      << ".SH SYNOPSIS\n";
    for (const auto& c : kCommands) o << ".B pouch\n" << roff(c.synopsis) << "\n.br\n";
    o << ".SH DESCRIPTION\n"
      << roff(
             "pouch is the reference command-line client of Pouch Sync. It speaks only the "
             "public HTTP API and the client format of docs/CLIENT-FORMAT.md: the server sees "
             "encrypted envelopes and blobs, never names or contents.")
      << "\n.SH COMMANDS\n";
    for (const auto& c : kCommands) {
        o << ".SS " << roff(c.synopsis) << "\n" << roff(c.description) << "\n";
        for (const auto& op : c.options)
            o << ".TP\n.B " << roff(op.flag) << "\n" << roff(op.text) << "\n";
    }
    o << ".SH OPTIONS\n";
    for (const auto& op : kGlobal)
        o << ".TP\n.B " << roff(op.flag) << "\n" << roff(op.text) << "\n";
    o << ".SH ENVIRONMENT\n.TP\n.B POUCH_SERVER\n"
      << roff("the server of pouch login when --server is not given")
      << "\n.TP\n.B XDG_CONFIG_HOME\n"
      << roff("the config directory is $XDG_CONFIG_HOME/pouch") << "\n"
      << ".SH FILES\n.TP\n.I ~/.config/pouch/\n"
      << roff(
             "sign.pem and enc.pem (the device's private keys), device.json (the session), "
             "keys.json (the opened pouch keys), folders/ (one state file per synced folder); "
             "the directory is 0700, every file 0600.")
      << "\n.SH EXIT STATUS\n";
    for (const auto& e : kExitCodes) o << ".TP\n.B " << e[0] << "\n" << roff(e[1]) << "\n";
    o << ".SH SEE ALSO\n" << roff("docs/CLI.md, docs/CLIENT-FORMAT.md, docs/API.md") << "\n";
    return o.str();
}

}  // namespace pouch::cli
