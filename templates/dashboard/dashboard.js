// The dashboard works without JavaScript; this file only adds live refresh
// and confirmations. It is served from the dashboard's own origin (CSP
// script-src 'self'), so there is no inline script anywhere.
'use strict'

// <div data-live-refresh="/dashboard/events/rows"> is replaced by a fresh
// copy of that fragment every few seconds while the tab is visible.
function startLiveRefresh(element) {
  var url = element.getAttribute('data-live-refresh')
  var every = Number(element.getAttribute('data-live-interval') || '3000')
  var busy = false
  setInterval(function () {
    if (busy || document.hidden) return
    busy = true
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        // Signed out (the key was revoked, or its overlap ended): the fragment's route redirects to the
        // sign-in page. Go there, where the reason is shown, rather than put that page inside this list.
        if (response.redirected) {
          window.location.assign(response.url)
          return null
        }
        if (!response.ok) throw new Error('HTTP ' + response.status)
        return response.text()
      })
      .then(function (html) {
        if (html === null) return
        if (element.innerHTML !== html) element.innerHTML = html
        element.removeAttribute('data-live-error')
      })
      .catch(function () {
        element.setAttribute('data-live-error', 'true')
      })
      .finally(function () {
        busy = false
      })
  }, every)
}

// <form data-confirm="Revoke this key?">: asks before a destructive action.
function confirmBeforeSubmit(form) {
  form.addEventListener('submit', function (event) {
    if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault()
  })
}

document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('[data-live-refresh]').forEach(startLiveRefresh)
  document.querySelectorAll('form[data-confirm]').forEach(confirmBeforeSubmit)
})
