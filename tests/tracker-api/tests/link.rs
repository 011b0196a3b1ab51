//! `listIssues` pages can also be walked through `Link: <…>; rel="next"` headers.

use serde_json::Value;

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("bound address");
    tokio::spawn(tracker_api::serve(listener));
    format!("http://{address}")
}

async fn get(client: &reqwest::Client, url: &str) -> (Option<String>, Value) {
    let response = client
        .get(url)
        .bearer_auth("alice-token")
        .send()
        .await
        .expect("the tracker answers");
    assert!(
        response.status().is_success(),
        "{url}: {}",
        response.status()
    );
    let link = response
        .headers()
        .get("link")
        .map(|v| v.to_str().expect("an ASCII header").to_string());
    (link, response.json().await.expect("a JSON page"))
}

#[tokio::test]
async fn following_next_links_visits_every_issue_once_and_keeps_the_filters() {
    let base = start().await;
    let client = reqwest::Client::new();
    let (_, projects) = get(&client, &format!("{base}/v2/projects")).await;
    let web = projects["items"][0]["id"]
        .as_str()
        .expect("WEB's id")
        .to_string();
    let mut url = format!("{base}/v2/projects/{web}/issues?state=1&per_page=20");
    let mut keys = Vec::new();
    let mut pages = 0;
    loop {
        let (link, page) = get(&client, &url).await;
        pages += 1;
        for issue in page["items"].as_array().expect("items") {
            assert_eq!(issue["state"], 1, "the state filter is kept on every page");
            keys.push(issue["key"].as_str().expect("a key").to_string());
        }
        let Some(link) = link else { break };
        let target = link
            .strip_prefix('<')
            .and_then(|rest| rest.split_once(">; rel=\"next\""))
            .map(|(target, _)| target.to_string())
            .expect("a next link");
        url = format!("{base}{target}");
        assert!(pages < 10, "the links never end");
    }
    let total = keys.len();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), total, "no issue is listed twice");
    assert_eq!(total, 52, "WEB has 52 open issues");
    assert_eq!(pages, 3);
}

#[tokio::test]
async fn the_last_page_has_no_link() {
    let base = start().await;
    let client = reqwest::Client::new();
    let (_, projects) = get(&client, &format!("{base}/v2/projects")).await;
    let mobile = projects["items"][2]["id"]
        .as_str()
        .expect("MOBILE's id")
        .to_string();
    let (link, page) = get(&client, &format!("{base}/v2/projects/{mobile}/issues")).await;
    assert_eq!(page["total"], 4);
    assert_eq!(link, None);
}
