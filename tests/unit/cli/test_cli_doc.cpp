// The CLI's docs against its declaration: the man page renders without groff warnings and
// names every command and option, the bash completion completes them (run in a real bash),
// `--help` of every command lists every option, and --version is the project's version. The
// expectations are read from the CLI11 tree itself, so a command or option added without docs
// (or docs that lose one) fails here.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "cli/app.h"
#include "cli/commands.h"
#include "cli/help_doc.h"
#include "tests/lab/shell.h"
#include "tests/test_paths.h"

namespace cli_doc_test {

using ibw::cli::build_app;
using ibw::cli::CliTree;

using Out = ibw::lab::ShellOut;
using ibw::lab::run_shell;

std::filesystem::path tmp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("ibw-cli-doc-" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

std::string write(const std::string& name, const std::string& text) {
  auto path = (tmp_dir() / name).string();
  std::ofstream(path) << text;
  return path;
}

// Every visible command of the tree with its path ("rules validate").
std::vector<std::pair<std::string, const CLI::App*>> commands(const CLI::App& app,
                                                              const std::string& prefix = "") {
  std::vector<std::pair<std::string, const CLI::App*>> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // hidden
    std::string path = prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
    out.emplace_back(path, sub);
    for (auto& nested : commands(*sub, path)) out.push_back(nested);
  }
  return out;
}

// The long options ("--plan") and positionals ("FILE") of one command, --help included.
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_group().empty()) continue;
    out.push_back(o->get_lnames().empty() ? o->get_name(true) : "--" + o->get_lnames().front());
  }
  return out;
}

// Runs `ibwarden ARGS...` in this process; returns (exit code, stdout, stderr).
std::tuple<int, std::string, std::string> run(std::vector<std::string> args) {
  args.insert(args.begin(), "ibwarden");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  int rc = ibw::cli::run_cli(static_cast<int>(args.size()), argv.data());
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {rc, out.str(), err.str()};
}

std::vector<std::string> split_words(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(path);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Sources the completion script, completes the last of `words` and returns COMPREPLY.
std::set<std::string> complete(const std::string& script, const std::vector<std::string>& words) {
  std::string cmd =
      "bash --norc --noprofile -c 'source \"$0\"; COMP_WORDS=(\"${@}\"); "
      "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ibwarden; "
      "printf \"%s\\n\" \"${COMPREPLY[@]}\"' " +
      script;
  for (const auto& w : words) cmd += " '" + w + "'";
  Out o = run_shell(cmd);
  REQUIRE(o.status == 0);
  std::set<std::string> out;
  std::istringstream in(o.text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.insert(line);
  return out;
}

TEST_CASE("cli doc: the man page renders without warnings and has every section", "[cli]") {
  CliTree tree = build_app();
  std::string man = ibw::cli::man_page(*tree.root);
  std::string file = write("ibwarden.1", man);
  Out groff = run_shell("groff -man -ww -z " + file + " 2>&1");
  INFO(groff.text);
  CHECK(groff.status == 0);
  CHECK(groff.text.empty());
  Out mandb = run_shell("man --warnings -l " + file + " 2>&1 >/dev/null");
  INFO(mandb.text);
  CHECK(mandb.status == 0);
  CHECK(mandb.text.empty());
  for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH COMMANDS",
                              ".SH EXIT STATUS", ".SH FILES", ".SH SEE ALSO"})
    CHECK(man.find(section) != std::string::npos);
  for (const char* text : {"/etc/ibwarden/ibwarden.yaml", "/etc/ibwarden/rules.yaml",
                           "/var/lib/ibwarden", ".BR opensm (8)", ".BR ibqueryerrors (8)"})
    CHECK(man.find(text) != std::string::npos);
}

TEST_CASE("cli doc: every command and option is in the man page and the completion", "[cli]") {
  CliTree tree = build_app();
  std::string man = ibw::cli::man_page(*tree.root);
  std::string bash = ibw::cli::bash_completion(*tree.root);
  auto all = commands(*tree.root);
  REQUIRE(all.size() >= 17);  // 15 commands, rules validate, store backup
  for (const auto& [path, cmd] : all) {
    INFO(path);
    auto section = man.find(".SS " + path + "\n");
    REQUIRE(section != std::string::npos);
    std::string text = man.substr(section, man.find(".SS ", section + 1) - section);
    std::smatch words_line;
    REQUIRE(std::regex_search(bash, words_line,
                              std::regex("\n    \"" + path + "\"\\) words=\"([^\"]*)\"")));
    auto words = split_words(words_line[1]);
    for (const std::string& opt : option_names(*cmd)) {
      INFO(opt);
      std::string roff = std::regex_replace(opt, std::regex("-"), "\\-");
      CHECK((text.find(".TP\n\\fB" + roff + "\\fR") != std::string::npos ||
             text.find(".TP\n\\fI" + opt + "\\fR") != std::string::npos));
      if (opt.rfind("--", 0) == 0) CHECK(std::count(words.begin(), words.end(), opt) == 1);
    }
    for (const CLI::App* sub : cmd->get_subcommands([](const CLI::App*) { return true; }))
      CHECK(std::count(words.begin(), words.end(), sub->get_name()) == 1);
  }
  CHECK(man.find("discover-cache") == std::string::npos);  // hidden
  CHECK(bash.find("discover-cache") == std::string::npos);
}

TEST_CASE("cli doc: the bash completion completes commands and options and values", "[cli]") {
  CliTree tree = build_app();
  std::string script = write("ibwarden.bash", ibw::cli::bash_completion(*tree.root));
  CHECK(complete(script, {"ibwarden", "ev"}) == std::set<std::string>{"events"});
  CHECK(complete(script, {"ibwarden", "events", "--fo"}) == std::set<std::string>{"--format"});
  CHECK(complete(script, {"ibwarden", "events", "--format", ""}) ==
        std::set<std::string>{"text", "json"});
  CHECK(complete(script, {"ibwarden", "events", "--format", "=", ""}) ==
        std::set<std::string>{"text", "json"});
  CHECK(complete(script, {"ibwarden", "events", "--config", "audit", "--l"}) ==
        std::set<std::string>{"--limit"});
  CHECK(complete(script, {"ibwarden", "rules", "v"}) == std::set<std::string>{"validate"});
  CHECK(complete(script, {"ibwarden", "disc"}).empty());  // hidden
  // Every command name, every option of every command, the fixed values of each option.
  std::set<std::string> top;
  for (const auto& [path, cmd] : commands(*tree.root))
    if (path.find(' ') == std::string::npos) top.insert(path);
  auto first = complete(script, {"ibwarden", ""});
  for (const auto& name : top) CHECK(first.count(name) == 1);
  for (const auto& [path, cmd] : commands(*tree.root)) {
    INFO(path);
    auto words = split_words(path);
    words.insert(words.begin(), "ibwarden");
    words.push_back("--");
    auto offered = complete(script, words);
    for (const std::string& opt : option_names(*cmd))
      if (opt.rfind("--", 0) == 0) CHECK(offered.count(opt) == 1);
    for (const CLI::Option* o : cmd->get_options()) {
      auto values = ibw::cli::fixed_values(o->get_type_name());
      if (values.empty() || o->get_lnames().empty()) continue;
      words.back() = "--" + o->get_lnames().front();
      words.push_back("");
      CHECK(complete(script, words) == std::set<std::string>(values.begin(), values.end()));
      words.pop_back();
    }
  }
  // File names for FILE values and positionals.
  std::string dir = tmp_dir().string();
  write("rules-a.yaml", "rules: []\n");
  CHECK(complete(script, {"ibwarden", "rules", "validate", dir + "/rules-"}) ==
        std::set<std::string>{dir + "/rules-a.yaml"});
  CHECK(complete(script, {"ibwarden", "audit", "--plan", dir + "/rules-"}) ==
        std::set<std::string>{dir + "/rules-a.yaml"});
}

TEST_CASE("cli doc: --help of every command lists every option", "[cli]") {
  CliTree tree = build_app();
  auto [top_rc, top_out, top_err] = run({"--help"});
  CHECK(top_rc == 0);
  for (const auto& [path, cmd] : commands(*tree.root)) {
    INFO(path);
    if (path.find(' ') == std::string::npos)
      CHECK(top_out.find("\n  " + path + " ") != std::string::npos);
    auto args = split_words(path);
    args.push_back("--help");
    auto [rc, out, err] = run(args);
    CHECK(rc == 0);
    CHECK(err.empty());
    CHECK(out.find("usage: ibwarden " + path) == 0);
    for (const std::string& opt : option_names(*cmd))
      CHECK(out.find("\n  " + opt) != std::string::npos);
    // A usage error names the command and prints the same help on stderr.
    args.back() = "--no-such-option";
    auto [bad_rc, bad_out, bad_err] = run(args);
    CHECK(bad_rc == 2);
    CHECK(bad_out.empty());
    CHECK(bad_err == "ibwarden " + path + ": unknown option --no-such-option\n\n" + out);
  }
}

TEST_CASE("cli doc: --help ends with the manual's path and the man page names it", "[cli]") {
  auto [rc, out, err] = run({"--help"});
  CHECK(rc == 0);
  REQUIRE(out.size() > 1);
  std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
  CHECK(last.find("/usr/share/doc/ibwarden/") != std::string::npos);
  // tests/deb/check_deb.sh checks that the package installs the manual there.
  CliTree tree = build_app();
  CHECK(ibw::cli::man_page(*tree.root).find(".I /usr/share/doc/ibwarden/\nthe manual") !=
        std::string::npos);
}

TEST_CASE("cli doc: --version is the project version", "[cli]") {
  std::ifstream in(std::string(IBW_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  std::string cmake = text.str();
  REQUIRE(std::regex_search(cmake, m, std::regex(R"(project\(ibwarden VERSION ([0-9.]+))")));
  auto [rc, out, err] = run({"--version"});
  CHECK(rc == 0);
  CHECK(out == "ibwarden " + m[1].str() + "\n");
  CliTree tree = build_app();
  CHECK(ibw::cli::man_page(*tree.root).find("\"ibwarden " + m[1].str() + "\"") !=
        std::string::npos);
}

TEST_CASE("cli doc: store backup reports its errors with exit status 2", "[cli]") {
  auto [rc, out, err] = run({"store", "backup", (tmp_dir() / "copy.db").string(), "--config",
                             (tmp_dir() / "missing.yaml").string()});
  CHECK(rc == 2);
  CHECK(out.empty());
  CHECK(err.rfind("ibwarden store backup: ", 0) == 0);
  CHECK(err.find("missing.yaml") != std::string::npos);
  auto [usage_rc, usage_out, usage_err] = run({"store", "backup"});
  CHECK(usage_rc == 2);
  CHECK(usage_err.rfind("ibwarden store backup: FILE is required\n\nusage: ", 0) == 0);
  auto [group_rc, group_out, group_err] = run({"store"});
  CHECK(group_rc == 2);
  CHECK(group_err.rfind("ibwarden store: expected `backup FILE", 0) == 0);
}

TEST_CASE("cli doc: the hidden discover-cache gets its arguments as they are", "[cli]") {
  // The daemon's own parser (daemon/topology.cpp) sees --ca and reports the missing --output
  // with stdio on file descriptor 2, captured here in a file.
  std::string file = (tmp_dir() / "discover-cache.err").string();
  std::fflush(stderr);
  int saved = ::dup(2);
  FILE* capture = std::fopen(file.c_str(), "w");
  REQUIRE(capture);
  ::dup2(::fileno(capture), 2);
  auto [rc, out, err] = run({"discover-cache", "--ca", "mlx5_0"});
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::fclose(capture);
  std::ifstream in(file);
  std::string fd2((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(rc == 2);
  CHECK(err.empty());  // nothing from ibwarden's own parser
  CHECK(fd2.rfind("usage: ibwarden discover-cache --output FILE", 0) == 0);
}

}  // namespace cli_doc_test
