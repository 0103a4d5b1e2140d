// --help and the ibwarden(1) man page, both read from the declared CLI11 tree (cli/app.h).
#include "cli/help_doc.h"

#include <CLI/CLI.hpp>

#include <cctype>
#include <sstream>

namespace ibw::cli {
namespace help_doc_detail {

constexpr size_t kWidth = 99;  // --help wraps its text at this column
constexpr size_t kOptionColumn = 24;

std::vector<std::string> split_paragraphs(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find("\n\n", start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

std::string option_tag(const OptionDoc& o) {
  return o.value_name.empty() || o.positional ? o.name : o.name + " " + o.value_name;
}

std::string option_text(const OptionDoc& o) {
  std::string text = o.description;
  if (o.required) text += " (required)";
  if (o.repeatable) text += " (repeatable)";
  if (!o.default_value.empty()) text += " (default: " + o.default_value + ")";
  return text;
}

// Troff text: backslashes, the dashes of options ("--ca-port", all of them, so that the text
// can be copied) and a leading control character escaped.
std::string roff(const std::string& text) {
  std::string out;
  bool in_option = false;  // inside a word that starts with '-'
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char before = i ? text[i - 1] : ' ';
    if (c == '-' && std::string(" ([|`'\"").find(before) != std::string::npos) in_option = true;
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) in_option = false;
    if (c == '\\')
      out += "\\e";
    else if (c == '-' && in_option)
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// "compare the plan" -> "Compare the plan."
std::string sentence(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  if (!text.empty() && text.back() != '.') text += '.';
  return text;
}

std::string roff_tag(const OptionDoc& o) {
  if (o.positional) return "\\fI" + roff(o.name) + "\\fR";
  std::string tag = "\\fB" + roff(o.name) + "\\fR";
  if (!o.value_name.empty()) tag += " \\fI" + roff(o.value_name) + "\\fR";
  return tag;
}

}  // namespace help_doc_detail

using namespace help_doc_detail;

std::string command_path(const CLI::App& cmd) {
  std::string path;
  for (const CLI::App* a = &cmd; a && a->get_parent(); a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

CommandDoc command_doc(const CLI::App& cmd) {
  CommandDoc d;
  d.path = command_path(cmd);
  auto paragraphs = split_paragraphs(cmd.get_description());
  if (!paragraphs.empty()) {
    d.summary = paragraphs.front();
    d.paragraphs.assign(paragraphs.begin() + 1, paragraphs.end());
  }
  d.footer = cmd.get_footer();
  const CLI::Option* help = cmd.get_help_ptr();
  std::vector<const CLI::Option*> options = cmd.get_options();
  std::stable_partition(options.begin(), options.end(),
                        [&](const CLI::Option* o) { return o != help; });
  for (const CLI::Option* opt : options) {
    if (opt->get_group().empty()) continue;  // hidden
    OptionDoc o;
    o.positional = opt->get_lnames().empty() && opt->get_snames().empty();
    o.name = o.positional                 ? opt->get_name(true)
             : !opt->get_lnames().empty() ? "--" + opt->get_lnames().front()
                                          : "-" + opt->get_snames().front();
    if (opt->get_items_expected_max() != 0) o.value_name = opt->get_type_name();
    o.description = opt->get_description();
    o.default_value = opt->get_default_str();
    o.required = opt->get_required();
    o.repeatable = opt->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
    d.options.push_back(o);
  }
  for (const CLI::App* sub :
       cmd.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); }))
    d.subcommands.push_back(sub->get_name());
  return d;
}

std::vector<const CLI::App*> visible_commands(const CLI::App& root) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub :
       root.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    out.push_back(sub);
    for (const CLI::App* nested : visible_commands(*sub)) out.push_back(nested);
  }
  return out;
}

std::vector<std::string> synopsis_groups(const CommandDoc& doc) {
  if (doc.path.empty()) return {"ibwarden", "COMMAND", "[OPTIONS]"};
  std::vector<std::string> out = {"ibwarden " + doc.path};
  if (!doc.subcommands.empty()) {
    std::string subs;
    for (const auto& name : doc.subcommands) subs += (subs.empty() ? "" : "|") + name;
    out.push_back(subs);
    out.push_back("...");
  }
  for (const auto& o : doc.options) {
    if (o.name == "--help") continue;
    std::string tag = option_tag(o);
    out.push_back((o.required ? tag : "[" + tag + "]") + (o.repeatable ? "..." : ""));
  }
  return out;
}

std::string synopsis(const CommandDoc& doc) {
  std::string out;
  for (const auto& g : synopsis_groups(doc)) out += (out.empty() ? "" : " ") + g;
  return out;
}

std::string fill(const std::vector<std::string>& words, size_t width, const std::string& indent,
                 size_t first_column) {
  std::string out;
  size_t column = first_column;
  bool line_empty = true;
  for (const auto& word : words) {
    if (!line_empty && column + 1 + word.size() > width) {
      out += "\n" + indent;
      column = indent.size();
      line_empty = true;
    }
    if (!line_empty) out += " ", ++column;
    out += word;
    column += word.size();
    line_empty = false;
  }
  return out;
}

std::string wrap(const std::string& text, size_t width, const std::string& indent,
                 size_t first_column) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return fill(words, width, indent, first_column);
}

std::string command_help(const CLI::App& cmd) {
  CommandDoc d = command_doc(cmd);
  std::string out;
  if (d.path.empty()) {  // the top-level usage
    out = "usage: " + synopsis(d) + "\n\n" + cmd.get_description() + "\n\nCommands:\n";
    for (const CLI::App* sub :
         cmd.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      std::string name = "  " + sub->get_name();
      name.resize(std::max<size_t>(16, name.size() + 2), ' ');
      out += name + command_doc(*sub).summary + "\n";
    }
    return out + "\n" + d.footer + "\n";
  }
  std::string usage = "usage: ";
  out = usage +
        fill(synopsis_groups(d), kWidth, std::string(usage.size() + 9 + d.path.size() + 1, ' '),
             usage.size()) +
        "\n\n";
  if (d.paragraphs.empty()) out += wrap(d.summary, kWidth, "") + "\n\n";
  for (const auto& p : d.paragraphs) out += wrap(p, kWidth, "") + "\n\n";
  if (!d.subcommands.empty()) {
    out += "Commands:\n";
    for (const CLI::App* sub :
         cmd.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
      std::string name = "  " + sub->get_name();
      name.resize(std::max(kOptionColumn, name.size() + 2), ' ');
      out += name + command_doc(*sub).summary + "\n";
    }
    out += "\n";
  }
  out += "Options:\n";
  for (const auto& o : d.options) {
    std::string tag = "  " + option_tag(o);
    std::string text = option_text(o);
    if (tag.size() + 2 > kOptionColumn) {
      out += tag + "\n" + std::string(kOptionColumn, ' ');
    } else {
      tag.resize(kOptionColumn, ' ');
      out += tag;
    }
    out += wrap(text, kWidth, std::string(kOptionColumn, ' '), kOptionColumn) + "\n";
  }
  if (!d.footer.empty()) out += "\n" + wrap(d.footer, kWidth, "") + "\n";
  return out;
}

std::string man_page(const CLI::App& root) {
  std::ostringstream m;
  m << ".\\\" ibwarden(1), generated by ibw-clidoc from the CLI's declaration (cli/app_decl*.cpp)\n"
    << ".TH IBWARDEN 1 \"\" \"ibwarden " << IBW_VERSION << "\" \"User Commands\"\n"
    << ".SH NAME\nibwarden \\- keeps InfiniBand fabrics healthy\n"
    << ".SH SYNOPSIS\n.B ibwarden\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B ibwarden\n"
    << "\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n"
    << ".SH DESCRIPTION\n"
    << roff(root.get_description()) << " ibwarden audits the cabling of an InfiniBand fabric "
    << "against its plan, watches the fabric (OpenSM log, port counters, link changes, "
    << "routing tables) into an SQLite store, disables bad links through a guard, opens repair "
    << "work orders, and localizes lossy links behind cursed routes.\n.PP\n"
    << "Every command prints its options with \\fB\\-\\-help\\fR. Options take their value as "
    << "\\fB\\-\\-name\\fR \\fIvalue\\fR or \\fB\\-\\-name=\\fR\\fIvalue\\fR.\n"
    << ".SH COMMANDS\n";
  for (const CLI::App* cmd : visible_commands(root)) {
    CommandDoc d = command_doc(*cmd);
    m << ".SS " << d.path << "\n";
    std::string syn = synopsis(d);
    m << "\\fBibwarden " << d.path << "\\fR" << roff(syn.substr(9 + d.path.size())) << "\n.PP\n"
      << roff(sentence(d.summary)) << "\n";
    for (const auto& p : d.paragraphs) m << ".PP\n" << roff(p) << "\n";
    for (const auto& o : d.options)
      m << ".TP\n" << roff_tag(o) << "\n" << roff(option_text(o)) << "\n";
    if (!d.footer.empty()) m << ".PP\n" << roff(d.footer) << "\n";
  }
  m << ".SH EXIT STATUS\n"
    << ".TP\n.B 0\nsuccess: the command ran and found nothing to report.\n"
    << ".TP\n.B 1\nfindings: the audit found differences, a traced route is broken, the "
       "localizer names suspects, replay made decisions, or a port action was refused or "
       "failed.\n"
    << ".TP\n.B 2\nusage error (the message and the command's help go to standard error), "
       "invalid input or configuration, or a failure.\n"
    << ".SH FILES\n"
    << ".TP\n.I /etc/ibwarden/ibwarden.yaml\nthe configuration (\\fB\\-\\-config\\fR); "
       "\\fBibwarden store backup\\fR reads it by default.\n"
    << ".TP\n.I /etc/ibwarden/rules.yaml\nthe rules the daemon evaluates (rules.file).\n"
    << ".TP\n.I /var/lib/ibwarden\nthe daemon's state: the SQLite store (store.path).\n"
    << ".TP\n.I " << kManualDir << "\nthe manual: README.md, then one page per subject "
    << "(audit, watcher, rules, cursed-routes, ufm, web, reliability, ha, operations, ...).\n"
    << ".SH SEE ALSO\n.BR opensm (8),\n.BR ibqueryerrors (8)\n";
  return m.str();
}

}  // namespace ibw::cli
