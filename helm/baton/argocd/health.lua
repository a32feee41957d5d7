-- Argo CD health of a Baton resource: Workflow, WorkerService or RetryPolicy (group baton.dev); the same script serves
-- the three kinds (resource.customizations.health.baton.dev_<Kind> in argocd-cm, see the chart README).
-- Healthy: the operator has reconciled the current generation and Ready is True.
-- Degraded: Ready is False for a reason a person must act on (a bad spec, a name conflict, a missing permission or
-- tenancy grant, the broker refusing or unreachable).
-- Progressing: anything else (not reconciled yet, worker pods starting, KEDA's scaler getting ready).
local hs = {}
local needsAPerson = {
  InvalidSpec = true, InvalidRetryPolicy = true, MissingService = true, MissingCommand = true,
  MissingRetryPolicy = true, Conflict = true, ImmutableQueueArguments = true, BrokerRejected = true,
  BrokerUnavailable = true, KedaForbidden = true, KedaNotInstalled = true, ReconcileError = true, Forbidden = true,
}

local status = obj.status
if status == nil or status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Baton operator to reconcile it"
  return hs
end
local generation = obj.metadata ~= nil and obj.metadata.generation or nil
if status.observedGeneration == nil or (generation ~= nil and status.observedGeneration < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the Baton operator to reconcile generation " .. tostring(generation)
  return hs
end
for _, condition in ipairs(status.conditions) do
  if condition.type == "Ready" then
    local said = condition.reason or ""
    if condition.message ~= nil and condition.message ~= "" then
      said = said .. ": " .. condition.message
    end
    if condition.status == "True" then
      hs.status = "Healthy"
    elseif condition.status == "False" and needsAPerson[condition.reason] then
      hs.status = "Degraded"
    else
      hs.status = "Progressing"
    end
    hs.message = said
    return hs
  end
end
hs.status = "Progressing"
hs.message = "No Ready condition yet"
return hs
