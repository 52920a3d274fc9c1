// Code actions and the workbench's own requests: protocol shapes only; the rewriting is
// core/workbench/code_actions.h's.
//
//   textDocument/codeAction    schedule primitives at the cursor (edits computed, since each is
//                              one primitive on one function) and every registered pipeline and
//                              pass over the file (edits resolved on demand when the client
//                              supports codeAction/resolve, computed at once otherwise)
//   workbench/passSnapshots    {textDocument, pipeline, opt_level?, pass_config?,
//                              disabled_passes?, required_passes?} -> {ok, error, passes: [{index,
//                              name, milliseconds, changed, before, after}]}; the pass control
//                              fields as a manifest case has them (an unknown key or pass is
//                              an InvalidParams error naming it)
//   workbench/applySchedule    {textDocument, recipe, funcName?} -> {ok, text, trace} or
//                              {ok: false, error: {message, line, character}} (0-based, in the
//                              recipe)
#include "workbench/code_actions.h"

#include "server.h"
#include "transform/instrument.h"
#include "transform/pass_control.h"
#include "workbench/session.h"

namespace wb::lsp {

using namespace lang;
using namespace workbench;

namespace {

json WholeDocumentEdit(const Document& doc, const std::string& new_text) {
  TextRange whole{{0, 0}, doc.PositionOf(static_cast<uint32_t>(doc.text().size()))};
  return {
      {"changes", {{doc.uri(), json::array({{{"range", ToJson(whole)}, {"newText", new_text}}})}}}};
}

// Whether a kind is wanted by the request's `context.only` filter (prefix match, as LSP says).
bool Wanted(const json& params, const std::string& kind) {
  if (!params.contains("context") || !params["context"].contains("only")) return true;
  for (const json& only : params["context"]["only"]) {
    std::string k = only.get<std::string>();
    if (kind == k || kind.rfind(k + ".", 0) == 0) return true;
  }
  return false;
}

std::string PassTitle(const PassChoice& choice) {
  return (choice.is_pipeline ? "Run pipeline " : "Apply pass ") + choice.name;
}

}  // namespace

void Server::RegisterWorkbenchHandlers() {
  Request("textDocument/codeAction", [this](const json& p) { return OnCodeAction(p); });
  Request("codeAction/resolve", [this](const json& p) { return OnResolveCodeAction(p); });
  Request("workbench/passSnapshots", [this](const json& p) {
    const Document& doc = DocumentOf(p);
    std::string pipeline = p.value("pipeline", std::string(Session::kDefaultPipeline));
    transform::PassControl control;
    DiagnosticList invalid;
    if (!transform::ReadPassControl(p, &control, invalid)) {
      std::string why;
      for (const auto& d : invalid) why += (why.empty() ? "" : "; ") + d.message;
      throw RpcError(kInvalidParams, "workbench/passSnapshots: " + why);
    }
    Session session;
    session.SetDocument(doc.text(), doc.uri());
    const transform::PipelineResult& run = session.RunPipeline(pipeline, control);
    json passes = json::array();
    for (const transform::PassSnapshot& s : run.snapshots) {
      passes.push_back({{"index", s.index},
                        {"name", s.name},
                        {"milliseconds", s.milliseconds},
                        {"changed", s.changed()},
                        {"before", s.BeforeText()},
                        {"after", s.after.defined() ? s.AfterText() : std::string()}});
    }
    json out = {{"ok", run.ok()}, {"pipeline", pipeline}, {"passes", std::move(passes)}};
    if (!run.ok())
      out["error"] = run.diagnostics.empty() ? "the pipeline failed" : run.diagnostics[0].message;
    return out;
  });
  Request("workbench/applySchedule", [this](const json& p) {
    const Document& doc = DocumentOf(p);
    RewriteResult r =
        ApplySchedule(doc, p.at("recipe").get<std::string>(), p.value("funcName", ""));
    if (!r.text) {
      json error = {{"message", r.error}};
      if (r.error_line > 0) {
        error["line"] = r.error_line - 1;
        error["character"] = r.error_column - 1;
      }
      return json{{"ok", false}, {"error", std::move(error)}};
    }
    return json{{"ok", true}, {"text", *r.text}, {"trace", r.trace}};
  });
}

json Server::OnCodeAction(const json& params) {
  const Document& doc = DocumentOf(params);
  TextPosition position = ToPosition(params.at("range").at("start"));
  json out = json::array();
  if (!doc.Parsed().ok()) return out;  // nothing to rewrite until the file parses
  if (Wanted(params, "refactor.rewrite")) {
    for (const ScheduleAction& a : ComputeScheduleActions(doc, position)) {
      out.push_back({{"title", "Schedule: " + a.title},
                     {"kind", "refactor.rewrite"},
                     {"edit", WholeDocumentEdit(doc, a.new_text)},
                     {"data", {{"recipe", a.recipe}, {"funcName", a.func_name}}}});
    }
  }
  if (Wanted(params, "source.workbench.pass")) {
    for (const PassChoice& choice : PassChoices()) {
      json action = {
          {"title", PassTitle(choice)},
          {"kind", "source.workbench.pass"},
          {"data", {{"uri", doc.uri()}, {"version", doc.version()}, {"pipeline", choice.name}}}};
      if (!client_resolves_edits_) {
        RewriteResult r = ApplyPipeline(doc, choice.name);
        if (!r.text || *r.text == doc.text()) continue;
        action["edit"] = WholeDocumentEdit(doc, *r.text);
      }
      out.push_back(std::move(action));
    }
  }
  return out;
}

json Server::OnResolveCodeAction(const json& action) {
  json out = action;
  if (out.contains("edit") || !action.contains("data") || !action["data"].contains("pipeline"))
    return out;
  const json& data = action["data"];
  auto it = documents_.find(data.at("uri").get<std::string>());
  if (it == documents_.end())
    throw RpcError(kInvalidParams, "document not open: " + data["uri"].get<std::string>());
  const Document& doc = *it->second;
  if (data.value("version", doc.version()) != doc.version()) {
    throw RpcError(kContentModified, "the document changed since the code action was offered");
  }
  RewriteResult r = ApplyPipeline(doc, data.at("pipeline").get<std::string>());
  if (!r.text) throw RpcError(kRequestFailed, r.error);
  out["edit"] = WholeDocumentEdit(doc, *r.text);
  return out;
}

}  // namespace wb::lsp
